import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import {
  balanceRows,
  createLedgerTestDeps,
  createTestMerchants,
  fundMerchant,
} from '../testing/ledger-fixtures.js'
import { custodyAccount, merchantAccount } from './chart-of-accounts.js'
import { checkLedgerInvariants } from './check-ledger-invariants.js'
import { getBalances } from './get-balances.js'
import type { LedgerLeg } from './ledger-types.js'
import { ensureLedgerAccounts } from './lock-accounts.js'
import { postTransaction } from './post-transaction.js'
import { isLedgerOverdraft, isMissingLedgerAccount, toPostingCtes } from './posting-ctes.js'

type Deps = ReturnType<typeof createLedgerTestDeps>

describeEachDatabase(
  'toPostingCtes',
  (getDb) => {
    let deps: Deps
    let a: string
    let b: string
    beforeAll(async () => {
      deps = createLedgerTestDeps(getDb())
      ;[a = '', b = ''] = await createTestMerchants(deps, 2)
    })

    const custody = custodyAccount('base', 'USDC')
    const legsFor = (merchantId: string): LedgerLeg[] => [
      { debit: custody, credit: merchantAccount(merchantId), amount: 100n, currency: 'USDC' },
      { debit: custody, credit: merchantAccount(merchantId), amount: 50n, currency: 'USDC' },
      { debit: custody, credit: 'platform:fees', amount: 5n, currency: 'USDC' },
    ]
    // The gate CTE yields one row when `open`, none otherwise; the statement answers what it posted.
    const post = async (input: { key: string; legs: LedgerLeg[]; open?: boolean }) => {
      const { ctes, transactionId } = toPostingCtes(deps, {
        environment: 'test',
        idempotencyKey: input.key,
        legs: input.legs,
        source: 'x402',
        reference: input.key,
        gate: 'gate',
      })
      await sql`with gate as (select 1 as one where ${input.open ?? true}), ${ctes} select 1 as done`.execute(
        deps.db,
      )
      return transactionId
    }
    const available = async (merchantId: string) =>
      (await getBalances(deps, { merchantId, environment: 'test' })).find((x) => x.currency === 'USDC')
        ?.available
    const credits = (merchantId: string) => balanceRows(deps.db, merchantId)

    test('behavior: a missing account fails the whole statement, nothing written; with the accounts it posts', async () => {
      const error = await post({ key: 'ctes-1', legs: legsFor(a) }).catch((e: unknown) => e)
      expect(isMissingLedgerAccount(error)).toBe(true)
      expect(await deps.db.selectFrom('ledger_transactions').select('id').execute()).toEqual([])
      await ensureLedgerAccounts(deps, {
        environment: 'test',
        refs: legsFor(a).flatMap((l) => [
          { code: l.debit, currency: l.currency },
          { code: l.credit, currency: l.currency },
        ]),
      })
      const id = await post({ key: 'ctes-1', legs: legsFor(a) })
      expect(
        await deps.db.selectFrom('ledger_transfers').select('leg').where('transaction_id', '=', id).execute(),
      ).toHaveLength(3)
      // Two legs to one account: the second starts where the first ended.
      expect((await credits(a)).map((c) => [c.amount, c.before, c.after])).toEqual([
        ['100', '0', '100'],
        ['50', '100', '150'],
      ])
      expect(await available(a)).toBe(150n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: a claimed key or a gate without a row posts nothing', async () => {
      await post({ key: 'ctes-1', legs: legsFor(a) })
      await post({ key: 'ctes-2', legs: legsFor(a), open: false })
      expect(await credits(a)).toHaveLength(2)
      expect(await available(a)).toBe(150n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: same request hash as postTransaction, so a step-by-step replay of the key is a replay', async () => {
      await ensureLedgerAccounts(deps, {
        environment: 'test',
        refs: [{ code: merchantAccount(b), currency: 'USDC' }],
      })
      await post({ key: 'ctes-3', legs: legsFor(b) })
      const replay = await postTransaction(deps, {
        environment: 'test',
        idempotencyKey: 'ctes-3',
        legs: legsFor(b),
        source: 'x402',
        reference: 'ctes-3',
      })
      expect(replay.replayed).toBe(true)
      expect(await available(b)).toBe(150n)
    })

    // A pending debit of the merchant (a payout's reserve): amount + fee leave available at once.
    const reserveLegs = (merchantId: string): LedgerLeg[] => [
      { debit: merchantAccount(merchantId), credit: custody, amount: 10n, currency: 'USDC' },
      { debit: merchantAccount(merchantId), credit: 'platform:fees', amount: 1n, currency: 'USDC' },
    ]
    const reserve = (key: string, merchantId: string) => {
      const { ctes } = toPostingCtes(deps, {
        environment: 'test',
        idempotencyKey: key,
        legs: reserveLegs(merchantId),
        pending: true,
        source: 'payout',
        gate: 'gate',
      })
      return sql`with gate as (select 1 as one), ${ctes} select 1 as done`.execute(deps.db)
    }

    test('behavior: a pending debit reserves in one statement; its balance rows are pending and chain', async () => {
      const [c = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: c, amount: 30n, currency: 'USDC' })
      await reserve('ctes-r1', c)
      expect(await available(c)).toBe(19n)
      const rows = await balanceRows(deps.db, c, 'payout')
      expect(rows.map((r) => [r.direction, r.status, r.amount, r.before, r.after])).toEqual([
        ['debit', 'pending', '10', '30', '20'],
        ['debit', 'pending', '1', '20', '19'],
      ])
      const phases = await deps.db
        .selectFrom('ledger_transfers as t')
        .innerJoin('ledger_transactions as x', 'x.id', 't.transaction_id')
        .select('t.phase')
        .where('x.idempotency_key', '=', 'ctes-r1')
        .execute()
      expect(phases.map((p) => p.phase)).toEqual(['pending', 'pending'])
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('edge: a debit that would overdraw the merchant fails the whole statement, nothing written', async () => {
      const [c = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: c, amount: 10n, currency: 'USDC' })
      const error = await reserve('ctes-r2', c).catch((e: unknown) => e)
      expect(isLedgerOverdraft(error)).toBe(true)
      expect(await available(c)).toBe(10n)
      expect(
        await deps.db
          .selectFrom('ledger_transactions')
          .select('id')
          .where('idempotency_key', '=', 'ctes-r2')
          .execute(),
      ).toEqual([])
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: concurrent reserves never overdraw: a balance covering 5 gives exactly 5 of 20', async () => {
      const [c = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: c, amount: 55n, currency: 'USDC' })
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => reserve(`ctes-race-${i}`, c)),
      )
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5)
      expect(results.every((r) => r.status === 'fulfilled' || isLedgerOverdraft(r.reason))).toBe(true)
      expect(await available(c)).toBe(0n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })
  },
  { poolSize: 30 },
)
