import { type RawBuilder, sql } from 'kysely'
import type { Deps } from '../deps.js'
import { toMerchantSides } from './merchant-sides.js'
import { assertValidInput, hashInput, type PostTransactionInput } from './post-transaction.js'

/** Input of {@link toPostingCtes}: a {@link PostTransactionInput} and the CTE that gates it. */
export type PostingCtesInput = PostTransactionInput & {
  /**
   * Name of an earlier CTE of the same statement: the transaction is posted only when it yields a
   * row (e.g. the domain row the statement inserted), and not at all when it yields none.
   */
  gate: string
}

/**
 * The CTEs that post a ledger transaction (single-phase, or two-phase with `pending`) inside a
 * caller's statement, so a domain row and its ledger postings are written in one round trip and one
 * implicit transaction (a failing statement writes nothing). Appended after the caller's `with …`
 * CTEs (comma included); the caller ends the statement with its own `select`.
 *
 * What {@link postTransaction} does in several statements, in one: claim the idempotency key (a key
 * already used posts nothing: the caller reads what exists), lock the accounts in id order (the
 * ledger's lock order, so it never deadlocks with a multi-statement posting), move the counters,
 * insert the transfers and the merchant-visible balance transactions, their before/after balances
 * taken from the updated rows.
 *
 * A leg may debit a merchant (flagged) account: the account's CHECK constraint, evaluated on the row
 * as updated after its lock was granted (so after every concurrent posting that held it), refuses a
 * posting that would take it negative, and the whole statement fails ({@link isLedgerOverdraft}).
 * Under the caller's own transaction, that error aborts it: the caller throws `insufficient_balance`.
 * The accounts must exist: a missing one leaves a transfer without its account id and the statement
 * fails with a NOT NULL violation ({@link isMissingLedgerAccount}); create them with
 * `ensureLedgerAccounts` and run the statement again.
 */
export function toPostingCtes(
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: PostingCtesInput,
): { ctes: RawBuilder<unknown>; transactionId: string } {
  assertValidInput(input)
  const env = input.environment
  const now = deps.clock.now()
  const pending = input.pending === true
  const transactionId = input.transactionId ?? deps.ids.create('ltx')
  const legs = input.legs.map((leg, index) => ({ ...leg, index, transferId: deps.ids.create('tr') }))
  // Net counter moves per account, and for each merchant-side leg what it and the later legs change
  // in the same account's available and pending, so its before/after balances can be read off the
  // account's final counters.
  const moves = new Map<string, { code: string; currency: string; debits: bigint; credits: bigint }>()
  for (const leg of legs) {
    for (const [code, side] of [
      [leg.debit, 'debits'],
      [leg.credit, 'credits'],
    ] as const) {
      const key = `${code}|${leg.currency}`
      const move = moves.get(key) ?? { code, currency: leg.currency, debits: 0n, credits: 0n }
      move[side] += leg.amount
      moves.set(key, move)
    }
  }
  const sides = toMerchantSides(legs, pending).map((side) => ({ ...side, id: deps.ids.create('btx') }))
  const info = [
    input.source,
    input.sourceId ?? null,
    input.sourceReference ?? null,
    input.reference ?? null,
    input.description ?? null,
    input.txHash ?? null,
  ]
  const infoValues = sql.join(info.map((value) => sql`${value}::text`))
  const gate = sql.table(input.gate)
  const legRows = legs.map(
    (l) =>
      sql`(${l.index}::int, ${l.transferId}::text, ${l.currency}::text, ${l.debit}::text, ${l.credit}::text, ${l.amount}::numeric)`,
  )
  const moveRows = [...moves.values()].map(
    (m) => sql`(${m.code}::text, ${m.currency}::text, ${m.debits}::numeric, ${m.credits}::numeric)`,
  )
  const sideRows = sides.map(
    (s) =>
      sql`(${s.id}::text, ${s.leg.index}::int, ${s.leg.transferId}::text, ${s.code}::text, ${s.leg.currency}::text, ${s.direction}::text, ${s.leg.amount}::numeric, ${s.own.available}::numeric, ${s.own.pending}::numeric, ${s.later.available}::numeric, ${s.later.pending}::numeric)`,
  )
  const balances =
    sideRows.length === 0
      ? sql``
      : sql`, ledger_sides (id, ord, transfer_id, code, currency, direction, amount, own_available, own_pending,
      later_available, later_pending) as (values ${sql.join(sideRows)}),
  ledger_balances as (
    insert into balance_transactions (id, merchant_id, environment, account_id, transaction_id, transfer_id,
      source, source_id, source_reference, reference, description, tx_hash, direction, status, amount,
      currency, before_available, before_pending, after_available, after_pending, created_at, updated_at)
    select s.id, m.merchant_id, ${env}::text, m.id, c.id, s.transfer_id, ${infoValues}, s.direction,
      ${pending ? 'pending' : 'completed'}::text, s.amount, s.currency,
      m.credits_posted - m.debits_posted - m.debits_pending - s.later_available - s.own_available,
      m.credits_pending - s.later_pending - s.own_pending,
      m.credits_posted - m.debits_posted - m.debits_pending - s.later_available,
      m.credits_pending - s.later_pending, ${now}::timestamptz, ${now}::timestamptz
    from ledger_sides s
    cross join ledger_claimed c
    join ledger_moved m on m.code = s.code and m.currency = s.currency
    order by s.ord, s.direction desc
    returning id
  )`
  // A pending posting moves the pending counters, a single-phase one the posted counters.
  const [debitsColumn, creditsColumn] = pending
    ? [sql.ref('debits_pending'), sql.ref('credits_pending')]
    : [sql.ref('debits_posted'), sql.ref('credits_posted')]
  const ctes = sql`ledger_claimed as (
    insert into ledger_transactions (id, environment, idempotency_key, request_hash, source, source_id,
      source_reference, reference, description, tx_hash, created_at)
    select ${transactionId}::text, ${env}::text, ${input.idempotencyKey}::text, ${hashInput(input)}::text, ${infoValues}, ${now}::timestamptz
    from ${gate}
    where true
    limit 1
    on conflict (environment, idempotency_key) do nothing
    returning id
  ),
  ledger_legs (leg, transfer_id, currency, debit_code, credit_code, amount) as (values ${sql.join(legRows)}),
  ledger_moves (code, currency, debits, credits) as (values ${sql.join(moveRows)}),
  ledger_moved as (
    update ledger_accounts a
    set ${debitsColumn} = a.${debitsColumn} + m.debits, ${creditsColumn} = a.${creditsColumn} + m.credits
    from ledger_moves m,
      (select l.id from ledger_accounts l
        join ledger_moves lm on lm.code = l.code and lm.currency = l.currency
        where l.environment = ${env}::text and exists (select 1 from ledger_claimed)
        order by l.id
        for update of l) locked
    where a.id = locked.id and a.code = m.code and a.currency = m.currency
    returning a.id, a.code, a.currency, a.merchant_id, a.debits_pending, a.debits_posted,
      a.credits_pending, a.credits_posted
  ),
  ledger_written as (
    insert into ledger_transfers (id, transaction_id, leg, environment, currency, debit_account_id,
      credit_account_id, amount, phase, pending_id, expires_at, created_at)
    select l.transfer_id, c.id, l.leg, ${env}::text, l.currency, d.id, k.id, l.amount,
      ${pending ? 'pending' : 'single'}::text, null, ${input.expiresAt ?? null}::timestamptz, ${now}::timestamptz
    from ledger_legs l
    cross join ledger_claimed c
    left join ledger_moved d on d.code = l.debit_code and d.currency = l.currency
    left join ledger_moved k on k.code = l.credit_code and k.currency = l.currency
    returning id
  )${balances}`
  return { ctes, transactionId }
}

/** Whether `error` is the NOT NULL violation of a {@link toPostingCtes} statement whose account is missing. */
export function isMissingLedgerAccount(error: unknown): boolean {
  const e = error as { code?: unknown; column?: unknown; table?: unknown }
  return e.code === '23502' && (e.table === undefined || e.table === 'ledger_transfers')
}

/**
 * Whether `error` is the CHECK violation of a merchant account that a posting would have taken
 * negative: the refusal of a {@link toPostingCtes} statement that debits one (`insufficient_balance`).
 */
export function isLedgerOverdraft(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown }
  return e.code === '23514' && e.constraint === 'ledger_accounts_debits_within_credits'
}
