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
import { toPostingBatchCtes } from './posting-batch-ctes.js'
import { isLedgerOverdraft, isMissingLedgerAccount } from './posting-ctes.js'

type Deps = ReturnType<typeof createLedgerTestDeps>

describeEachDatabase(
  'toPostingBatchCtes',
  (getDb) => {
    let deps: Deps
    beforeAll(async () => {
      deps = createLedgerTestDeps(getDb())
    })

    const custody = custodyAccount('base', 'USDC')
    // A payout's reserve: amount to the treasury, fee to the platform, both pending debits.
    const reserveLegs = (merchantId: string, amount: bigint, fee: bigint): LedgerLeg[] => [
      { debit: merchantAccount(merchantId), credit: custody, amount, currency: 'USDC' },
      { debit: merchantAccount(merchantId), credit: 'platform:fees', amount: fee, currency: 'USDC' },
    ]
    const batch = (keys: string[], legs: (key: string) => LedgerLeg[], pending = true) => {
      const transactions = keys.map((key) => ({
        environment: 'test' as const,
        idempotencyKey: key,
        transactionId: deps.ids.create('ltx'),
        pending,
        legs: legs(key),
        source: 'payout' as const,
        sourceId: key,
      }))
      const ctes = toPostingBatchCtes(deps, { environment: 'test', transactions, gate: 'gate' })
      return sql`with gate as (select 1 as one), ${ctes} select 1 as done`.execute(deps.db)
    }
    const available = async (merchantId: string) =>
      (await getBalances(deps, { merchantId, environment: 'test' })).find((x) => x.currency === 'USDC')
        ?.available
    const ensure = (merchantId: string) =>
      ensureLedgerAccounts(deps, {
        environment: 'test',
        refs: reserveLegs(merchantId, 1n, 1n).flatMap((l) => [
          { code: l.debit, currency: l.currency },
          { code: l.credit, currency: l.currency },
        ]),
      })

    test('behavior: three reserves in one statement: own transactions, transfers and chained balance rows', async () => {
      const [m = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: m, amount: 100n, currency: 'USDC' })
      await ensure(m)
      await batch(['b-1', 'b-2', 'b-3'], (key) => reserveLegs(m, key === 'b-2' ? 20n : 10n, 1n))
      expect(await available(m)).toBe(100n - 11n - 21n - 11n)
      const transactions = await deps.db
        .selectFrom('ledger_transactions as x')
        .innerJoin('ledger_transfers as t', 't.transaction_id', 'x.id')
        .select(['x.idempotency_key', 't.phase', 't.amount'])
        .where('x.idempotency_key', 'in', ['b-1', 'b-2', 'b-3'])
        .orderBy('x.idempotency_key')
        .orderBy('t.leg')
        .execute()
      expect(transactions.map((t) => [t.idempotency_key, t.phase, String(t.amount)])).toEqual([
        ['b-1', 'pending', '10'],
        ['b-1', 'pending', '1'],
        ['b-2', 'pending', '20'],
        ['b-2', 'pending', '1'],
        ['b-3', 'pending', '10'],
        ['b-3', 'pending', '1'],
      ])
      const rows = await balanceRows(deps.db, m, 'payout')
      // Each reserve starts where the one before it in the batch ended.
      expect(rows.map((r) => [r.sourceId, r.status, r.amount, r.before, r.after])).toEqual([
        ['b-1', 'pending', '10', '100', '90'],
        ['b-1', 'pending', '1', '90', '89'],
        ['b-2', 'pending', '20', '89', '69'],
        ['b-2', 'pending', '1', '69', '68'],
        ['b-3', 'pending', '10', '68', '58'],
        ['b-3', 'pending', '1', '58', '57'],
      ])
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: single-phase credits of two merchants in one statement: posted counters, chained completed rows', async () => {
      const [m = '', n = ''] = await createTestMerchants(deps, 2)
      await fundMerchant(deps, { merchantId: m, amount: 100n, currency: 'USDC' })
      // An x402 credit: custody to the merchant (net) and to the platform (fee).
      const creditLegs = (merchantId: string, net: bigint): LedgerLeg[] => [
        { debit: custody, credit: merchantAccount(merchantId), amount: net, currency: 'USDC' },
        { debit: custody, credit: 'platform:fees', amount: 1n, currency: 'USDC' },
      ]
      await ensure(m)
      await ensure(n)
      const fees = async () =>
        (
          await deps.db
            .selectFrom('ledger_accounts')
            .select(['credits_posted', 'credits_pending'])
            .where('code', '=', 'platform:fees')
            .where('currency', '=', 'USDC')
            .where('environment', '=', 'test')
            .executeTakeFirstOrThrow()
        ).credits_posted
      const feesBefore = BigInt(await fees())
      await batch(
        ['s-1', 's-2', 's-3'],
        (key) => creditLegs(key === 's-2' ? n : m, key === 's-3' ? 30n : 10n),
        false,
      )
      expect([await available(m), await available(n)]).toEqual([140n, 10n])
      expect(BigInt(await fees()) - feesBefore).toBe(3n)
      const transfers = await deps.db
        .selectFrom('ledger_transactions as x')
        .innerJoin('ledger_transfers as t', 't.transaction_id', 'x.id')
        .select(['x.idempotency_key', 't.phase', 't.amount'])
        .where('x.idempotency_key', 'in', ['s-1', 's-2', 's-3'])
        .orderBy('x.idempotency_key')
        .orderBy('t.leg')
        .execute()
      expect(transfers.map((t) => [t.idempotency_key, t.phase, String(t.amount)])).toEqual([
        ['s-1', 'single', '10'],
        ['s-1', 'single', '1'],
        ['s-2', 'single', '10'],
        ['s-2', 'single', '1'],
        ['s-3', 'single', '30'],
        ['s-3', 'single', '1'],
      ])
      const rows = await balanceRows(deps.db, [m, n], 'payout')
      // m's two credits chain (100 → 110 → 140) around n's, which starts at zero.
      expect(
        rows.map((r) => [r.merchantId === m ? 'm' : 'n', r.sourceId, r.status, r.amount, r.before, r.after]),
      ).toEqual([
        ['m', 's-1', 'completed', '10', '100', '110'],
        ['n', 's-2', 'completed', '10', '0', '10'],
        ['m', 's-3', 'completed', '30', '110', '140'],
      ])
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('edge: a batch mixing pending and single-phase transactions is refused before any SQL', () => {
      const transactions = [true, false].map((pending, i) => ({
        environment: 'test' as const,
        idempotencyKey: `mix-${i}`,
        transactionId: deps.ids.create('ltx'),
        pending,
        legs: [{ debit: custody, credit: 'platform:fees', amount: 1n, currency: 'USDC' }] as LedgerLeg[],
        source: 'payout' as const,
      }))
      expect(() => toPostingBatchCtes(deps, { environment: 'test', transactions, gate: 'gate' })).toThrow(
        /all pending or all single-phase/,
      )
    })

    test('edge: a batch whose total would overdraw fails as a whole, nothing written', async () => {
      const [m = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: m, amount: 30n, currency: 'USDC' })
      await ensure(m)
      // Each fits alone (11 of 30), the three together (33) do not.
      const error = await batch(['o-1', 'o-2', 'o-3'], () => reserveLegs(m, 10n, 1n)).catch((e: unknown) => e)
      expect(isLedgerOverdraft(error)).toBe(true)
      expect(await available(m)).toBe(30n)
      expect(
        await deps.db
          .selectFrom('ledger_transactions')
          .select('id')
          .where('idempotency_key', 'in', ['o-1', 'o-2', 'o-3'])
          .execute(),
      ).toEqual([])
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('edge: one key already used fails the whole batch, nothing else written', async () => {
      const [m = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: m, amount: 100n, currency: 'USDC' })
      await ensure(m)
      await batch(['k-1'], () => reserveLegs(m, 10n, 1n))
      const error = await batch(['k-2', 'k-1'], () => reserveLegs(m, 10n, 1n)).catch((e: unknown) => e)
      expect(isMissingLedgerAccount(error)).toBe(true)
      expect(await available(m)).toBe(89n)
      expect(
        await deps.db
          .selectFrom('ledger_transactions')
          .select('id')
          .where('idempotency_key', '=', 'k-2')
          .execute(),
      ).toEqual([])
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: concurrent batches never overdraw: a balance covering 6 reserves takes two batches of 3 of 5', async () => {
      const [m = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: m, amount: 66n, currency: 'USDC' })
      await ensure(m)
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) =>
          batch([`c-${i}-a`, `c-${i}-b`, `c-${i}-c`], () => reserveLegs(m, 10n, 1n)),
        ),
      )
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2)
      expect(results.every((r) => r.status === 'fulfilled' || isLedgerOverdraft(r.reason))).toBe(true)
      expect(await available(m)).toBe(0n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })
  },
  { poolSize: 30 },
)
