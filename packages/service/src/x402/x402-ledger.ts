import type { KeyEnvironment } from '../http/app-env.js'
import { custodyAccount, merchantAccount } from '../ledger/chart-of-accounts.js'
import type { LedgerCurrency } from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import type { PostTransactionInput } from '../ledger/post-transaction.js'

/** Converts minor units between scales, rounding down (a token with 18 decimals into a 6-decimal balance). */
export function rescale(amount: bigint, from: number, to: number): bigint {
  return to >= from ? amount * 10n ** BigInt(to - from) : amount / 10n ** BigInt(from - to)
}

/**
 * The legs of an x402 credit in the ledger currency's minor units: custody → merchant (net) and
 * custody → platform:fees (fee); zero legs are left out.
 */
export function toX402Legs(input: {
  chain: string
  asset: string
  merchantId: string
  currency: LedgerCurrency
  gross: bigint
  fee: bigint
}): LedgerLeg[] {
  const custody = custodyAccount(input.chain, input.asset)
  const { currency } = input
  const legs: LedgerLeg[] = [
    { debit: custody, credit: merchantAccount(input.merchantId), amount: input.gross - input.fee, currency },
    { debit: custody, credit: 'platform:fees', amount: input.fee, currency },
  ]
  return legs.filter((leg) => leg.amount > 0n)
}

/**
 * The posting of an x402 credit without its legs: one per on-chain transaction (idempotency key
 * `x402:<network>:<txHash>`), whoever posts it (the settle call or the confirmation handler), with
 * the same fields so a second post is a replay.
 */
export function toX402Posting(input: {
  environment: KeyEnvironment
  network: string
  chain: string
  txHash: string
  rowId: string
}): Omit<PostTransactionInput, 'legs'> {
  return {
    environment: input.environment,
    idempotencyKey: `x402:${input.network}:${input.txHash}`,
    source: 'x402',
    sourceId: input.rowId,
    reference: input.txHash,
    description: `x402 payment on ${input.chain}`,
    txHash: input.txHash,
  }
}

/** The ledger accounts the legs name, for creating those that do not exist yet. */
export function toLegRefs(legs: LedgerLeg[]) {
  return legs.flatMap((leg) => [
    { code: leg.debit, currency: leg.currency },
    { code: leg.credit, currency: leg.currency },
  ])
}
