import { createHash } from 'node:crypto'
import { sql } from 'kysely'
import type { KeyEnvironment } from '../http/app-env.js'
import type { LedgerDeps } from './post-transaction.js'
import { postPendingTransaction, voidPendingTransaction } from './resolve-pending.js'

/** A transaction with more pending legs than this is resolved step by step (payouts have 1 to 3). */
export const atOnceMaxLegs = 4

/**
 * Posts (or voids) every pending leg of a two-phase transaction in one SQL statement, so the accounts
 * it locks are held from that statement to the caller's commit instead of across the five round trips
 * of {@link postPendingTransaction}: claim the key `post:{ltx_…}` (`void:` for a void), lock the
 * accounts in id order (the ledger's lock order), move pending to posted (or release it), insert the
 * resolving transfers and mark the balance transactions `completed` (or `voided`). Same rows, keys and
 * request hash as the step-by-step path. When the statement resolves nothing (key already claimed,
 * a leg already resolved or expired, unknown transaction, more than {@link atOnceMaxLegs} legs) the
 * step-by-step path runs, which replays the first resolution or throws its precise error. A
 * concurrent post and void of the same transfer cannot both land: the unique `pending_id` index fails
 * the later statement (callers such as payouts serialise them on their own row anyway). Returns the
 * id of the resolving ledger transaction.
 */
export async function resolvePendingTransactionAtOnce(
  deps: LedgerDeps,
  input: { environment: KeyEnvironment; transactionId: string },
  phase: 'post' | 'void',
): Promise<string> {
  const { environment, transactionId } = input
  const now = deps.clock.now()
  const id = deps.ids.create('ltx')
  const key = `${phase}:${transactionId}`
  const transferIds = Array.from({ length: atOnceMaxLegs }, () => deps.ids.create('tr'))
  const posted = phase === 'post' ? 1 : 0
  const { rows } = await sql<{ claimed: string }>`with ledger_target as (
      select p.id, p.leg, p.currency, p.debit_account_id, p.credit_account_id, p.amount, p.expires_at,
        exists (select 1 from ledger_transfers r where r.pending_id = p.id) as resolved
      from ledger_transfers p
      where p.environment = ${environment}::text and p.transaction_id = ${transactionId}::text
        and p.phase = 'pending'
    ),
    ledger_origin as (
      select t.source, t.source_id, t.source_reference, t.reference, t.description, t.tx_hash
      from ledger_transactions t
      where t.id = ${transactionId}::text and t.environment = ${environment}::text
        and exists (select 1 from ledger_target)
        and (select max(leg) from ledger_target) < ${atOnceMaxLegs}::int
        and not exists (select 1 from ledger_target where resolved
          or (${posted}::int = 1 and expires_at is not null and expires_at <= ${now}::timestamptz))
    ),
    ledger_claimed as (
      insert into ledger_transactions (id, environment, idempotency_key, request_hash, source, source_id,
        source_reference, reference, description, tx_hash, created_at)
      select ${id}::text, ${environment}::text, ${key}::text, ${createHash('sha256').update(key).digest('hex')}::text,
        o.source, o.source_id, o.source_reference, o.reference, o.description, o.tx_hash, ${now}::timestamptz
      from ledger_origin o
      on conflict (environment, idempotency_key) do nothing
      returning id
    ),
    ledger_moves (account_id, dpe, dpo, cpe, cpo) as (
      select account_id, sum(dpe), sum(dpo), sum(cpe), sum(cpo) from (
        select debit_account_id as account_id, -amount as dpe, amount * ${posted}::int as dpo,
          0::numeric as cpe, 0::numeric as cpo
        from ledger_target
        union all
        select credit_account_id, 0, 0, -amount, amount * ${posted}::int from ledger_target
      ) legs
      group by account_id
    ),
    ledger_moved as (
      update ledger_accounts a
      set debits_pending = a.debits_pending + m.dpe, debits_posted = a.debits_posted + m.dpo,
        credits_pending = a.credits_pending + m.cpe, credits_posted = a.credits_posted + m.cpo
      from ledger_moves m,
        (select l.id from ledger_accounts l
          where l.id in (select account_id from ledger_moves) and exists (select 1 from ledger_claimed)
          order by l.id
          for update of l) locked
      where a.id = locked.id and a.id = m.account_id
      returning a.id
    ),
    ledger_written as (
      insert into ledger_transfers (id, transaction_id, leg, environment, currency, debit_account_id,
        credit_account_id, amount, phase, pending_id, expires_at, created_at)
      select (${transferIds}::text[])[p.leg + 1], c.id, p.leg, ${environment}::text, p.currency,
        p.debit_account_id, p.credit_account_id, p.amount, ${phase}::text, p.id, null, ${now}::timestamptz
      from ledger_target p
      cross join ledger_claimed c
      returning id
    ),
    ledger_resolved as (
      update balance_transactions
      set status = ${phase === 'post' ? 'completed' : 'voided'}::text, updated_at = ${now}::timestamptz
      where transfer_id in (select id from ledger_target) and exists (select 1 from ledger_claimed)
      returning id
    )
    select count(*) as claimed from ledger_claimed`.execute(deps.db)
  if (Number(rows[0]?.claimed ?? 0) === 1) {
    return id
  }
  const resolve = phase === 'post' ? postPendingTransaction : voidPendingTransaction
  return (await resolve(deps, input)).id
}
