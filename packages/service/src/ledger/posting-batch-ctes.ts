import { type RawBuilder, sql } from 'kysely'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { toMerchantSides } from './merchant-sides.js'
import { assertValidInput, hashInput, type PostTransactionInput } from './post-transaction.js'

/** Input of {@link toPostingBatchCtes}: several ledger transactions of one environment, one gate. */
export type PostingBatchCtesInput = {
  environment: KeyEnvironment
  /**
   * Each a transaction of its own (own idempotency key, `transactionId` given), in this order: all
   * pending (two-phase reserves, e.g. payouts) or all single-phase (posted at once, e.g. x402 credits).
   */
  transactions: (PostTransactionInput & { transactionId: string })[]
  /** Name of an earlier CTE of the same statement: nothing is posted when it yields no row. */
  gate: string
}

/**
 * The CTEs that post several ledger transactions in one caller's statement, all or none: what
 * {@link toPostingCtes} does for one (pending or single-phase, the same for the whole batch), with each account locked and updated once for the whole batch
 * (so a merchant's account is taken once for many payouts, docs/ledger.md "Batches"). Each
 * transaction keeps its own `ledger_transactions` row, transfers and balance transactions, whose
 * before/after balances are those of the transactions applied one after the other in the given order.
 *
 * All or none: a merchant account that the batch's total would overdraw fails its CHECK constraint
 * ({@link isLedgerOverdraft}); an idempotency key already used, or a missing account, leaves a
 * transfer without its account and fails the NOT NULL constraint ({@link isMissingLedgerAccount}).
 * The statement then writes nothing, and the caller decides transaction by transaction (e.g. with
 * {@link toPostingCtes}), which gives each its own answer. The data travels as JSON parameters, so
 * the statement's text does not grow with the batch.
 */
export function toPostingBatchCtes(
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: PostingBatchCtesInput,
): RawBuilder<unknown> {
  const env = input.environment
  const now = deps.clock.now()
  const pending = input.transactions[0]?.pending === true
  const transactions = input.transactions.map((t) => {
    assertValidInput(t)
    if (t.environment !== env || (t.pending === true) !== pending) {
      throw new Error(
        'a posting batch holds transactions of its environment, all pending or all single-phase',
      )
    }
    return t
  })
  const legs = transactions.flatMap((t) =>
    t.legs.map((leg, index) => ({ ...leg, tx: t.transactionId, index, transferId: deps.ids.create('tr') })),
  )
  const moves = new Map<string, { code: string; currency: string; debits: bigint }>()
  const credits = new Map<string, bigint>()
  for (const leg of legs) {
    const debitKey = `${leg.debit}|${leg.currency}`
    const creditKey = `${leg.credit}|${leg.currency}`
    for (const [key, code] of [
      [debitKey, leg.debit],
      [creditKey, leg.credit],
    ] as const) {
      if (!moves.has(key)) {
        moves.set(key, { code, currency: leg.currency, debits: 0n })
      }
    }
    const debit = moves.get(debitKey)
    if (debit) {
      debit.debits += leg.amount
    }
    credits.set(creditKey, (credits.get(creditKey) ?? 0n) + leg.amount)
  }
  const sides = toMerchantSides(legs, pending).map(({ leg, ord, code, direction, own, later }) => ({
    id: deps.ids.create('btx'),
    ord,
    tx: leg.tx,
    transfer_id: leg.transferId,
    code,
    currency: leg.currency,
    direction,
    amount: String(leg.amount),
    own_available: String(own.available),
    own_pending: String(own.pending),
    later_available: String(later.available),
    later_pending: String(later.pending),
  }))
  const txRows = transactions.map((t) => ({
    id: t.transactionId,
    idempotency_key: t.idempotencyKey,
    request_hash: hashInput(t),
    source: t.source,
    source_id: t.sourceId ?? null,
    source_reference: t.sourceReference ?? null,
    reference: t.reference ?? null,
    description: t.description ?? null,
    tx_hash: t.txHash ?? null,
    expires_at: t.expiresAt?.toISOString() ?? null,
  }))
  const legRows = legs.map((l) => ({
    tx: l.tx,
    leg: l.index,
    transfer_id: l.transferId,
    currency: l.currency,
    debit_code: l.debit,
    credit_code: l.credit,
    amount: String(l.amount),
  }))
  const moveRows = [...moves.entries()].map(([key, m]) => ({
    code: m.code,
    currency: m.currency,
    debits: String(m.debits),
    credits: String(credits.get(key) ?? 0n),
  }))
  const gate = sql.table(input.gate)
  const balances =
    sides.length === 0
      ? sql``
      : sql`,
  ledger_batch_balances as (
    insert into balance_transactions (id, merchant_id, environment, account_id, transaction_id, transfer_id,
      source, source_id, source_reference, reference, description, tx_hash, direction, status, amount,
      currency, before_available, before_pending, after_available, after_pending, created_at, updated_at)
    select s.id, m.merchant_id, ${env}::text, m.id, t.id, s.transfer_id, t.source, t.source_id,
      t.source_reference, t.reference, t.description, t.tx_hash, s.direction,
      ${pending ? 'pending' : 'completed'}::text, s.amount, s.currency,
      m.credits_posted - m.debits_posted - m.debits_pending - s.later_available - s.own_available,
      m.credits_pending - s.later_pending - s.own_pending,
      m.credits_posted - m.debits_posted - m.debits_pending - s.later_available,
      m.credits_pending - s.later_pending, ${now}::timestamptz, ${now}::timestamptz
    from json_to_recordset(${JSON.stringify(sides)}::json) as s (id text, ord int, tx text, transfer_id text,
      code text, currency text, direction text, amount numeric, own_available numeric, own_pending numeric,
      later_available numeric, later_pending numeric)
    join ledger_batch_claimed c on c.id = s.tx
    join ledger_batch_tx t on t.id = s.tx
    join ledger_batch_moved m on m.code = s.code and m.currency = s.currency
    order by s.ord, s.direction desc
    returning id
  )`
  // A pending batch moves the pending counters, a single-phase one the posted counters.
  const [debitsColumn, creditsColumn] = pending
    ? [sql.ref('debits_pending'), sql.ref('credits_pending')]
    : [sql.ref('debits_posted'), sql.ref('credits_posted')]
  return sql`ledger_batch_tx as (
    select * from json_to_recordset(${JSON.stringify(txRows)}::json) as t (id text, idempotency_key text,
      request_hash text, source text, source_id text, source_reference text, reference text,
      description text, tx_hash text, expires_at timestamptz)
  ),
  ledger_batch_claimed as (
    insert into ledger_transactions (id, environment, idempotency_key, request_hash, source, source_id,
      source_reference, reference, description, tx_hash, created_at)
    select t.id, ${env}::text, t.idempotency_key, t.request_hash, t.source, t.source_id, t.source_reference,
      t.reference, t.description, t.tx_hash, ${now}::timestamptz
    from ledger_batch_tx t
    where exists (select 1 from ${gate})
    on conflict (environment, idempotency_key) do nothing
    returning id
  ),
  ledger_batch_moves as (
    select * from json_to_recordset(${JSON.stringify(moveRows)}::json)
      as m (code text, currency text, debits numeric, credits numeric)
  ),
  ledger_batch_moved as (
    update ledger_accounts a
    set ${debitsColumn} = a.${debitsColumn} + m.debits, ${creditsColumn} = a.${creditsColumn} + m.credits
    from ledger_batch_moves m,
      (select l.id from ledger_accounts l
        join ledger_batch_moves lm on lm.code = l.code and lm.currency = l.currency
        where l.environment = ${env}::text
          and (select count(*) from ledger_batch_claimed) = ${transactions.length}::int
        order by l.id
        for update of l) locked
    where a.id = locked.id and a.code = m.code and a.currency = m.currency
    returning a.id, a.code, a.currency, a.merchant_id, a.debits_pending, a.debits_posted,
      a.credits_pending, a.credits_posted
  ),
  ledger_batch_written as (
    insert into ledger_transfers (id, transaction_id, leg, environment, currency, debit_account_id,
      credit_account_id, amount, phase, pending_id, expires_at, created_at)
    select l.transfer_id, l.tx, l.leg, ${env}::text, l.currency, d.id, k.id, l.amount,
      ${pending ? 'pending' : 'single'}::text, null,
      t.expires_at, ${now}::timestamptz
    from json_to_recordset(${JSON.stringify(legRows)}::json) as l (tx text, leg int, transfer_id text,
      currency text, debit_code text, credit_code text, amount numeric)
    join ledger_batch_tx t on t.id = l.tx
    cross join (select 1 from ${gate} limit 1) gated
    left join ledger_batch_moved d on d.code = l.debit_code and d.currency = l.currency
    left join ledger_batch_moved k on k.code = l.credit_code and k.currency = l.currency
    returning id
  )${balances}`
}
