import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { createIdGenerator } from '../deps.js'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import type { LedgerCurrency } from '../ledger/ledger-currencies.js'
import type { LedgerDeps } from '../ledger/post-transaction.js'
import { postTransaction } from '../ledger/post-transaction.js'
import { createMerchant } from '../merchants/create-merchant.js'

/** Ledger deps over `db` with a clock tests can move (`clock.set(ms)`, `clock.advance(ms)`). */
export function createLedgerTestDeps(
  db: Kysely<Database>,
  start = Date.UTC(2026, 0, 1),
): LedgerDeps & { clock: { now(): Date; set(ms: number): void; advance(ms: number): void } } {
  let now = start
  return {
    db,
    ids: createIdGenerator(),
    clock: {
      now: () => new Date(now),
      set: (ms) => {
        now = ms
      },
      advance: (ms) => {
        now += ms
      },
    },
  }
}

/** Creates `count` merchants and returns their ids. */
export async function createTestMerchants(deps: LedgerDeps, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    ids.push((await createMerchant(deps, { name: `Ledger test merchant ${i}` })).id)
  }
  return ids
}

/** Credits a merchant's test balance with `amount` minor units from `sandbox:funding`. */
export async function fundMerchant(
  deps: LedgerDeps,
  input: { merchantId: string; amount: bigint; currency?: LedgerCurrency },
): Promise<void> {
  await postTransaction(deps, {
    environment: 'test',
    idempotencyKey: deps.ids.create('fund'),
    legs: [
      {
        debit: 'sandbox:funding',
        credit: merchantAccount(input.merchantId),
        amount: input.amount,
        currency: input.currency ?? 'USDT',
      },
    ],
    source: 'sandbox_funding',
  })
}
