import { AppError, type FacilitatorClient, REASONS } from '@tollgate/core'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { custodyAccount, merchantAccount } from '../ledger/chart-of-accounts.js'
import { type LedgerCurrency, ledgerCurrencies } from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import { ensureLedgerAccounts } from '../ledger/lock-accounts.js'
import { postTransaction } from '../ledger/post-transaction.js'
import type { Db } from '../rails/types.js'
import { toX402Transaction } from './list-x402-transactions.js'
import { type MerchantX402Request, parseX402Request } from './parse-x402-request.js'
import type { X402Transaction } from './schemas.js'

type SettleInput = { merchantId: string; environment: KeyEnvironment; body: unknown }

/**
 * POST /x402/settle: settles a signed payment through the in-process facilitator (exactly once per
 * payment, however often it is called) and records it for the merchant. A payment to one of the
 * merchant's own x402 addresses credits its balance through the ledger, net of the x402 fee, once
 * per on-chain transaction. Returns the stored x402 transaction.
 */
export async function settleX402(
  deps: Pick<Deps, 'db' | 'rails' | 'ids' | 'clock' | 'settings'>,
  facilitator: FacilitatorClient,
  input: SettleInput,
): Promise<X402Transaction> {
  const parsed = await parseX402Request(deps, input)
  if (!parsed.payToAllowed) {
    throw new AppError('pay_to_not_allowed', {
      message: `payTo ${parsed.payTo} is not one of this merchant's x402 addresses`,
      context: { param: 'paymentRequirements.payTo' },
    })
  }
  const result = await facilitator.settle(parsed.request)
  const pending = !result.success && result.errorReason === REASONS.settlementPending
  if ((!result.success && !pending) || result.transaction === '') {
    throw new AppError('settlement_failed', {
      message: `The payment could not be settled: ${result.errorReason ?? 'unknown reason'}`,
      context: { details: { errorReason: result.errorReason ?? null } },
    })
  }
  const payer = result.payer ?? null
  const amlCheck = payer
    ? await deps.rails.screening.screen({ chain: parsed.entry.chain, address: payer })
    : 'pending'
  const currency = parsed.custodied ? parsed.asset.ledgerCurrency : null
  const split = currency ? splitFee(deps, parsed, currency) : { gross: 0n, fee: 0n }
  const legs = currency ? toLegs(parsed, input.merchantId, currency, split) : []
  if (legs.length > 0) {
    const refs = legs.flatMap((leg) => [
      { code: leg.debit, currency: leg.currency },
      { code: leg.credit, currency: leg.currency },
    ])
    await ensureLedgerAccounts(deps, { environment: input.environment, refs })
  }
  return inTransaction(deps.db, async (trx) => {
    const row = await recordTransaction(trx, deps, {
      ...input,
      parsed,
      txHash: result.transaction,
      status: pending ? 'pending' : 'confirmed',
      payer,
      amlCheck,
      fee: currency ? fromLedgerUnits(split.fee, ledgerCurrencies[currency], parsed.asset.decimals) : 0n,
      credited: legs.length > 0,
    })
    // A row first recorded as pending is credited by the settle call that finds it confirmed.
    if (row.status === 'confirmed' && row.credited && legs.length > 0) {
      await postTransaction(
        { ...deps, db: trx },
        {
          environment: input.environment,
          idempotencyKey: `x402:${parsed.entry.network}:${row.tx_hash}`,
          legs,
          source: 'x402',
          sourceId: row.id,
          reference: row.tx_hash,
          description: `x402 payment on ${parsed.entry.chain}`,
          txHash: row.tx_hash,
        },
      )
    }
    return toX402Transaction(deps, row)
  })
}

/** Gross amount and fee of a credited payment in the ledger currency's minor units (fee half-up once). */
function splitFee(deps: Pick<Deps, 'settings'>, parsed: MerchantX402Request, currency: LedgerCurrency) {
  const gross = rescale(parsed.amount, parsed.asset.decimals, ledgerCurrencies[currency])
  const fee = (gross * BigInt(deps.settings.x402FeeBps) + 5_000n) / 10_000n
  return { gross, fee }
}

// custody → merchant (net) and custody → platform:fees (fee); zero legs are left out.
function toLegs(
  parsed: MerchantX402Request,
  merchantId: string,
  currency: LedgerCurrency,
  split: { gross: bigint; fee: bigint },
): LedgerLeg[] {
  const custody = custodyAccount(parsed.entry.chain, parsed.asset.symbol)
  const legs: LedgerLeg[] = [
    { debit: custody, credit: merchantAccount(merchantId), amount: split.gross - split.fee, currency },
    { debit: custody, credit: 'platform:fees', amount: split.fee, currency },
  ]
  return legs.filter((leg) => leg.amount > 0n)
}

/** Converts minor units between scales, rounding down (a token with 18 decimals into a 6-decimal balance). */
function rescale(amount: bigint, from: number, to: number): bigint {
  return to >= from ? amount * 10n ** BigInt(to - from) : amount / 10n ** BigInt(from - to)
}

function fromLedgerUnits(amount: bigint, ledgerScale: number, decimals: number): bigint {
  return rescale(amount, ledgerScale, decimals)
}

async function recordTransaction(
  trx: Db,
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: SettleInput & {
    parsed: MerchantX402Request
    txHash: string
    status: 'pending' | 'confirmed'
    payer: string | null
    amlCheck: string
    fee: bigint
    credited: boolean
  },
) {
  const { parsed } = input
  const resource = parsed.normalized.paymentPayload.resource
  const written = await trx
    .insertInto('x402_transactions')
    .values({
      id: deps.ids.create('x4t'),
      merchant_id: input.merchantId,
      environment: input.environment,
      scheme: parsed.normalized.paymentPayload.accepted.scheme,
      network: parsed.entry.network,
      chain: parsed.entry.chain,
      asset: parsed.asset.symbol,
      asset_address: parsed.asset.address,
      tx_hash: input.txHash,
      status: input.status,
      aml_check: input.amlCheck,
      error_reason: null,
      resource: resource?.url ?? null,
      description: resource?.description ?? null,
      payer: input.payer,
      pay_to: parsed.payTo,
      amount: parsed.amount,
      fee: input.fee,
      credited: input.credited,
      block_number: null,
      created_at: deps.clock.now(),
    })
    .onConflict((oc) =>
      oc
        .columns(['environment', 'network', 'tx_hash'])
        .doUpdateSet({ status: input.status })
        .where('x402_transactions.status', '=', 'pending'),
    )
    .returningAll()
    .executeTakeFirst()
  // A row this statement wrote is locked until commit; an existing confirmed one is locked here, so
  // concurrent settles of one payment credit the ledger one after the other (once).
  const row =
    written ??
    (await trx
      .selectFrom('x402_transactions')
      .selectAll()
      .where('environment', '=', input.environment)
      .where('network', '=', parsed.entry.network)
      .where('tx_hash', '=', input.txHash)
      .forUpdate()
      .executeTakeFirstOrThrow())
  if (row.merchant_id !== input.merchantId) {
    throw new AppError('not_found', { message: `Transaction ${input.txHash} not found` })
  }
  return row
}
