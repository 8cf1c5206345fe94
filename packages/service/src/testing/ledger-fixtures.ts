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

/** A balance transaction as tests compare it: amounts as decimal strings of minor units. */
export type BalanceRow = {
  merchantId: string
  source: string
  sourceId: string | null
  direction: string
  status: string
  amount: string
  before: string
  after: string
  txHash: string | null
}

/** The balance transactions of `merchantIds` (of `source`, when given) in the order they were written. */
export async function balanceRows(
  db: Kysely<Database>,
  merchantIds: string | string[],
  source?: string,
): Promise<BalanceRow[]> {
  let query = db
    .selectFrom('balance_transactions')
    .select([
      'merchant_id',
      'source',
      'source_id',
      'direction',
      'status',
      'amount',
      'before_available',
      'after_available',
      'tx_hash',
    ])
    .where('merchant_id', 'in', Array.isArray(merchantIds) ? merchantIds : [merchantIds])
  if (source) {
    query = query.where('source', '=', source)
  }
  const rows = await query.orderBy('seq').execute()
  return rows.map((r) => ({
    merchantId: r.merchant_id,
    source: r.source,
    sourceId: r.source_id,
    direction: r.direction,
    status: r.status,
    amount: String(r.amount),
    before: String(r.before_available),
    after: String(r.after_available),
    txHash: r.tx_hash,
  }))
}
