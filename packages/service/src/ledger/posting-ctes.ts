import { AppError } from '@tollgate/core'
import { type RawBuilder, sql } from 'kysely'
import type { Deps } from '../deps.js'
import { getAccountPolicy } from './chart-of-accounts.js'
import { assertValidInput, hashInput, type PostTransactionInput } from './post-transaction.js'

/** Input of {@link toPostingCtes}: a single-phase {@link PostTransactionInput} and the CTE that gates it. */
export type PostingCtesInput = Omit<PostTransactionInput, 'pending' | 'expiresAt'> & {
  /**
   * Name of an earlier CTE of the same statement: the transaction is posted only when it yields a
   * row (e.g. the domain row the statement inserted), and not at all when it yields none.
   */
  gate: string
}

/**
 * The CTEs that post a single-phase ledger transaction inside a caller's statement, so a domain
 * row and its ledger credit are written in one round trip and one implicit transaction (a failing
 * statement writes nothing). Appended after the caller's `with …` CTEs (comma included); the caller
 * ends the statement with its own `select`.
 *
 * What {@link postTransaction} does in several statements, in one: claim the idempotency key (a key
 * already used posts nothing: the caller reads what exists), lock the accounts in id order (the
 * ledger's lock order, so it never deadlocks with a multi-statement posting), move the counters,
 * insert the transfers and the merchant-visible balance transactions, their before/after balances
 * taken from the updated rows.
 *
 * Limits, checked here: legs may credit any account but debit only unflagged ones (custody,
 * platform, bank), so no leg can overdraw and no balance check is needed. The accounts must exist:
 * a missing one leaves a transfer without its account id and the statement fails with a NOT NULL
 * violation ({@link isMissingLedgerAccount}); create them with `ensureLedgerAccounts` and run the
 * statement again.
 */
export function toPostingCtes(
  deps: Pick<Deps, 'ids' | 'clock'>,
  input: PostingCtesInput,
): { ctes: RawBuilder<unknown>; transactionId: string } {
  assertValidInput(input)
  for (const leg of input.legs) {
    if (getAccountPolicy(leg.debit).debitsMustNotExceedCredits) {
      throw new AppError('internal_error', { message: `toPostingCtes cannot debit ${leg.debit}` })
    }
  }
  const env = input.environment
  const now = deps.clock.now()
  const transactionId = deps.ids.create('ltx')
  const legs = input.legs.map((leg, index) => ({ ...leg, index, transferId: deps.ids.create('tr') }))
  // Net counter moves per account, and for each merchant-side leg what the later legs add to the
  // same account, so its before/after balances can be read off the account's final counters.
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
  const sides = legs.flatMap((leg) =>
    getAccountPolicy(leg.credit).merchantId === null
      ? []
      : [
          {
            id: deps.ids.create('btx'),
            leg,
            code: leg.credit,
            // available added to this account by the legs after this one (credits raise it, debits lower it)
            later: legs
              .slice(leg.index + 1)
              .reduce(
                (sum, l) =>
                  sum +
                  (l.credit === leg.credit && l.currency === leg.currency ? l.amount : 0n) -
                  (l.debit === leg.credit && l.currency === leg.currency ? l.amount : 0n),
                0n,
              ),
          },
        ],
  )
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
      sql`(${s.id}::text, ${s.leg.transferId}::text, ${s.code}::text, ${s.leg.currency}::text, ${s.leg.amount}::numeric, ${s.later}::numeric)`,
  )
  const balances =
    sideRows.length === 0
      ? sql``
      : sql`, ledger_sides (id, transfer_id, code, currency, amount, later) as (values ${sql.join(sideRows)}),
  ledger_balances as (
    insert into balance_transactions (id, merchant_id, environment, account_id, transaction_id, transfer_id,
      source, source_id, source_reference, reference, description, tx_hash, direction, status, amount,
      currency, before_available, before_pending, after_available, after_pending, created_at, updated_at)
    select s.id, m.merchant_id, ${env}::text, m.id, c.id, s.transfer_id, ${infoValues}, 'credit', 'completed',
      s.amount, s.currency,
      m.credits_posted - m.debits_posted - m.debits_pending - s.later - s.amount, m.credits_pending,
      m.credits_posted - m.debits_posted - m.debits_pending - s.later, m.credits_pending, ${now}::timestamptz, ${now}::timestamptz
    from ledger_sides s
    cross join ledger_claimed c
    join ledger_moved m on m.code = s.code and m.currency = s.currency
    returning id
  )`
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
    set debits_posted = a.debits_posted + m.debits, credits_posted = a.credits_posted + m.credits
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
    select l.transfer_id, c.id, l.leg, ${env}::text, l.currency, d.id, k.id, l.amount, 'single', null, null, ${now}::timestamptz
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
