import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type EnqueueJobInput, enqueueJobs } from '../jobs/enqueue-job.js'
import {
  type OpenTokenAccountPayload,
  openTokenAccountJobKind,
} from '../rails/chains/run-open-token-account-job.js'
import type { Db, ReservedIndex } from '../rails/types.js'
import type { SessionQuote } from './quote-session-payment.js'
import type { SessionRow } from './session-settlement.js'

/**
 * Allocates the deposit address of session `sessionId` in `db` (the caller's transaction) and returns
 * the columns that lock the quote on its row (asset, chain, address, FX rate, fees, crypto amount, and
 * the settlement currency and rate) and the jobs the caller must enqueue in the same transaction.
 */
export async function allocateSessionAddress(
  db: Db,
  deps: Pick<Deps, 'rails' | 'clock' | 'ids'>,
  input: {
    sessionId: string
    merchantId: string
    environment: KeyEnvironment
    quote: SessionQuote
    /** The session is being created in this transaction (no address can exist for it yet). */
    newSession?: boolean
    /** The address's index, reserved before the transaction (`rails.addresses.reserveIndex`). */
    reserved?: ReservedIndex | undefined
  },
) {
  const { quote } = input
  const address = await deps.rails.addresses.allocate(db, {
    merchantId: input.merchantId,
    environment: input.environment,
    chain: quote.chain.chain,
    purpose: 'session',
    ownerId: input.sessionId,
    newOwner: input.newSession ?? false,
    ...(input.reserved ? { reserved: input.reserved } : {}),
  })
  return sessionAddressColumns(deps, { environment: input.environment, quote, address })
}

/**
 * The columns that lock the quote on a session's row for its deposit `address`, and the jobs to
 * enqueue with it (the Solana token account).
 */
export function sessionAddressColumns(
  deps: Pick<Deps, 'clock'>,
  input: { environment: KeyEnvironment; quote: SessionQuote; address: { id: string; address: string } },
) {
  const { quote, address } = input
  const jobs: EnqueueJobInput[] = []
  if (quote.asset.kind === 'spl') {
    // An agent's x402 payment only transfers: the address's token account must exist before it
    // pays, so the treasury opens it (docs/sessions.md "Agent payments"). Committed with the session.
    const payload: OpenTokenAccountPayload = {
      environment: input.environment,
      chain: quote.chain.chain,
      asset: quote.asset.symbol,
      owner: address.address,
    }
    jobs.push({
      kind: openTokenAccountJobKind,
      payload,
      key: `${quote.chain.network}:${address.address}:${quote.asset.symbol}`,
    })
  }
  const columns = {
    asset: quote.asset.symbol,
    chain: quote.chain.chain,
    network: quote.chain.network,
    asset_decimals: quote.asset.decimals,
    address: address.address,
    address_id: address.id,
    conversion_rate: quote.rate,
    base_amount: quote.baseAmount,
    processing_fee: quote.processingFee,
    gas_fee: quote.gasFee,
    crypto_amount: quote.cryptoAmount,
    settles_in: quote.settlesIn,
    settlement_rate: quote.settlementRate,
    rate_locked_at: deps.clock.now(),
  }
  return { columns, jobs }
}

/** Allocates an existing session's address and locks its quote on the row (see {@link allocateSessionAddress}). */
export async function lockSessionAddress(
  db: Db,
  deps: Pick<Deps, 'rails' | 'clock' | 'ids'>,
  input: { row: SessionRow; quote: SessionQuote; customerId: string | null },
): Promise<SessionRow> {
  const { row } = input
  const { columns: locked, jobs } = await allocateSessionAddress(db, deps, {
    sessionId: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    quote: input.quote,
  })
  await enqueueJobs(db, deps, jobs)
  return db
    .updateTable('payment_sessions')
    .set({ ...locked, customer_id: input.customerId, updated_at: deps.clock.now() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}
