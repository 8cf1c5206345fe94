import { sql } from 'kysely'
import type { Deps } from '../deps.js'

/**
 * Checks the ledger's invariants (docs/conventions.md, 'Ledger') over the whole database and returns one
 * message per violation (empty when all hold): per environment and currency, debits equal credits
 * (posted and pending); each account's four counters equal the sums of its transfers; no flagged
 * account is negative; each pending transfer is resolved at most once, by a transfer that matches
 * it; each balance transaction's status matches its transfer's resolution.
 */
export async function checkLedgerInvariants(deps: Pick<Deps, 'db'>): Promise<string[]> {
  const { db } = deps
  const violations: string[] = []
  const unbalanced = await sql<{ environment: string; currency: string }>`
    select environment, currency from ledger_accounts group by environment, currency
    having sum(debits_posted) <> sum(credits_posted) or sum(debits_pending) <> sum(credits_pending)`.execute(
    db,
  )
  for (const row of unbalanced.rows) {
    violations.push(`debits != credits in ${row.environment} ${row.currency}`)
  }
  const drifted = await sql<{ id: string }>`
    with moves as (
      select debit_account_id as account_id,
        case when phase in ('single', 'post') then amount else 0 end as debits_posted,
        case phase when 'pending' then amount when 'single' then 0 else -amount end as debits_pending,
        0 as credits_posted, 0 as credits_pending
      from ledger_transfers
      union all
      select credit_account_id, 0, 0,
        case when phase in ('single', 'post') then amount else 0 end,
        case phase when 'pending' then amount when 'single' then 0 else -amount end
      from ledger_transfers
    ), sums as (
      select account_id, sum(debits_posted) as dpo, sum(debits_pending) as dpe,
        sum(credits_posted) as cpo, sum(credits_pending) as cpe
      from moves group by account_id
    )
    select a.id from ledger_accounts a left join sums s on s.account_id = a.id
    where a.debits_posted <> coalesce(s.dpo, 0) or a.debits_pending <> coalesce(s.dpe, 0)
      or a.credits_posted <> coalesce(s.cpo, 0) or a.credits_pending <> coalesce(s.cpe, 0)`.execute(db)
  for (const row of drifted.rows) {
    violations.push(`account ${row.id}: counters differ from the sum of its transfers`)
  }
  const negative = await sql<{ id: string }>`
    select id from ledger_accounts
    where (debits_must_not_exceed_credits and debits_posted + debits_pending > credits_posted)
      or (credits_must_not_exceed_debits and credits_posted + credits_pending > debits_posted)`.execute(db)
  for (const row of negative.rows) {
    violations.push(`account ${row.id}: flagged account is negative`)
  }
  violations.push(...(await checkResolutions(deps)))
  return violations
}

async function checkResolutions(deps: Pick<Deps, 'db'>): Promise<string[]> {
  const violations: string[] = []
  const twice = await sql<{ pending_id: string }>`
    select pending_id from ledger_transfers where pending_id is not null
    group by pending_id having count(*) > 1`.execute(deps.db)
  for (const row of twice.rows) {
    violations.push(`pending transfer ${row.pending_id} resolved more than once`)
  }
  const mismatched = await sql<{ id: string }>`
    select r.id from ledger_transfers r left join ledger_transfers p on p.id = r.pending_id
    where r.pending_id is not null and (p.id is null or p.phase <> 'pending' or p.amount <> r.amount
      or p.debit_account_id <> r.debit_account_id or p.credit_account_id <> r.credit_account_id
      or p.currency <> r.currency)`.execute(deps.db)
  for (const row of mismatched.rows) {
    violations.push(`transfer ${row.id} does not match the pending transfer it resolves`)
  }
  const stale = await sql<{ id: string }>`
    select b.id from balance_transactions b join ledger_transfers t on t.id = b.transfer_id
    left join ledger_transfers r on r.pending_id = t.id
    where b.status <> case
      when t.phase = 'single' or r.phase = 'post' then 'completed'
      when r.phase in ('void', 'expire') then 'voided'
      else 'pending' end`.execute(deps.db)
  for (const row of stale.rows) {
    violations.push(`balance transaction ${row.id} has a status that does not match its transfer`)
  }
  return violations
}
