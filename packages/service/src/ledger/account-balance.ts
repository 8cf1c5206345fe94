import { sql } from 'kysely'

/** The four counters of a ledger account (TigerBeetle's model), in minor units. */
export type AccountCounters = {
  debitsPending: bigint
  debitsPosted: bigint
  creditsPending: bigint
  creditsPosted: bigint
}

/** A credit-normal account's balance as the API shows it, in minor units. */
export type AccountBalance = { available: bigint; pending: bigint; total: bigint }

/**
 * The one balance formula (docs/conventions.md, 'Ledger'): `available = credits_posted - debits_posted -
 * debits_pending` (reserved outgoing money is not spendable), `pending = credits_pending` (incoming,
 * unconfirmed), `total = available + pending`.
 */
export function toAccountBalance(counters: AccountCounters): AccountBalance {
  return toBalanceSnapshot(
    counters.creditsPosted - counters.debitsPosted - counters.debitsPending,
    counters.creditsPending,
  )
}

/** A balance from its stored `available` and `pending` parts (`total = available + pending`). */
export function toBalanceSnapshot(available: bigint, pending: bigint): AccountBalance {
  return { available, pending, total: available + pending }
}

/**
 * `available` of {@link toAccountBalance} as SQL over a `ledger_accounts` row: the condition of the
 * reserving `UPDATE … WHERE available >= amount`. Tests check it agrees with the function.
 */
export const availableSql = sql<string>`credits_posted - debits_posted - debits_pending`

/** Reads the counters of a `ledger_accounts` row (NUMERIC comes back as text) into bigints. */
export function toAccountCounters(row: {
  debits_pending: string
  debits_posted: string
  credits_pending: string
  credits_posted: string
}): AccountCounters {
  return {
    debitsPending: BigInt(row.debits_pending),
    debitsPosted: BigInt(row.debits_posted),
    creditsPending: BigInt(row.credits_pending),
    creditsPosted: BigInt(row.credits_posted),
  }
}
