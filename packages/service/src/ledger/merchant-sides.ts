import { getAccountPolicy } from './chart-of-accounts.js'
import type { LedgerLeg } from './ledger-types.js'

/** What a posting changes in one account's balance (docs/ledger.md "Balance"), in minor units. */
export type BalanceEffect = { available: bigint; pending: bigint }

/**
 * The merchant-visible sides of a posting's legs, in order: for each leg, its debit and its credit
 * when that account is a merchant's (flagged) one, with what the leg itself (`own`) and every later
 * leg of the list (`later`) change in that account's balance. A statement that moved the account's
 * counters by all the legs at once reads each side's before/after balance off the final counters
 * with these. A pending debit leaves available (reserved) and a pending credit is incoming
 * (pending); a single-phase credit or debit moves available. Used by both posting builders
 * (posting-ctes.ts, posting-batch-ctes.ts), so they chain balances the same way.
 */
export function toMerchantSides<L extends LedgerLeg>(legs: L[], pending: boolean) {
  const effect = (leg: LedgerLeg, code: string, currency: string): BalanceEffect => {
    if (leg.currency !== currency) {
      return { available: 0n, pending: 0n }
    }
    const credit = leg.credit === code ? leg.amount : 0n
    const debit = leg.debit === code ? leg.amount : 0n
    return pending ? { available: -debit, pending: credit } : { available: credit - debit, pending: 0n }
  }
  return legs.flatMap((leg, ord) =>
    (['debit', 'credit'] as const).flatMap((direction) => {
      const code = leg[direction]
      if (getAccountPolicy(code).merchantId === null) {
        return []
      }
      const own = effect(leg, code, leg.currency)
      const later: BalanceEffect = { available: 0n, pending: 0n }
      for (const next of legs.slice(ord + 1)) {
        const e = effect(next, code, leg.currency)
        later.available += e.available
        later.pending += e.pending
      }
      return [{ leg, ord, code, direction, own, later }]
    }),
  )
}
