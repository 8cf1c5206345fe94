import { isAppError } from '@tollgate/core'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createLedgerTestDeps, createTestMerchants, fundMerchant } from '../testing/ledger-fixtures.js'
import { merchantAccount, treasuryCustodyAccount } from './chart-of-accounts.js'
import { checkLedgerInvariants } from './check-ledger-invariants.js'
import { getBalances } from './get-balances.js'
import type { LedgerLeg } from './ledger-types.js'
import { createPendingTransfer } from './post-transaction.js'
import { atOnceMaxLegs, resolvePendingTransactionAtOnce } from './resolve-pending-at-once.js'

type Deps = ReturnType<typeof createLedgerTestDeps>

describeEachDatabase(
  'resolvePendingTransactionAtOnce',
  (getDb) => {
    let deps: Deps
    let merchantId: string
    beforeAll(async () => {
      deps = createLedgerTestDeps(getDb())
      ;[merchantId = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId, amount: 1_000n, currency: 'USDC' })
    })

    const custody = treasuryCustodyAccount('base', 'USDC')
    const legs = (count: number): LedgerLeg[] =>
      Array.from({ length: count }, (_, i) => ({
        debit: merchantAccount(merchantId),
        credit: i % 2 === 0 ? custody : 'platform:fees',
        amount: 10n,
        currency: 'USDC',
      }))
    const reserve = async (key: string, count = 2) =>
      (
        await createPendingTransfer(deps, {
          environment: 'test',
          idempotencyKey: key,
          legs: legs(count),
          source: 'payout',
        })
      ).id
    const balance = async () => {
      const usdc = (await getBalances(deps, { merchantId, environment: 'test' })).find(
        (b) => b.currency === 'USDC',
      )
      return usdc?.available
    }
    const resolutions = (transactionId: string) =>
      deps.db
        .selectFrom('ledger_transfers as r')
        .innerJoin('ledger_transfers as p', 'p.id', 'r.pending_id')
        .select(['r.phase', 'r.transaction_id'])
        .where('p.transaction_id', '=', transactionId)
        .execute()
    const statuses = (transactionId: string) =>
      deps.db
        .selectFrom('balance_transactions')
        .select('status')
        .where('transaction_id', '=', transactionId)
        .execute()

    test('behavior: a post resolves every leg in one statement; posting twice posts once', async () => {
      const before = await balance()
      const ltx = await reserve('at-once-1')
      expect(await balance()).toBe((before ?? 0n) - 20n)
      // One statement, not the step-by-step path's seven.
      let statements = 0
      const counting = deps.db.withPlugin({
        transformQuery: (args) => {
          statements++
          return args.node
        },
        transformResult: async (args) => args.result,
      })
      const first = await resolvePendingTransactionAtOnce(
        { ...deps, db: counting },
        { environment: 'test', transactionId: ltx },
        'post',
      )
      expect(statements).toBe(1)
      const second = await resolvePendingTransactionAtOnce(
        deps,
        { environment: 'test', transactionId: ltx },
        'post',
      )
      expect(second).toBe(first)
      const rows = await resolutions(ltx)
      expect(rows.map((r) => [r.phase, r.transaction_id])).toEqual([
        ['post', first],
        ['post', first],
      ])
      expect((await statuses(ltx)).map((s) => s.status)).toEqual(['completed', 'completed'])
      expect(await balance()).toBe((before ?? 0n) - 20n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: a void releases the reserve; a later post is 409 (the step-by-step error)', async () => {
      const before = await balance()
      const ltx = await reserve('at-once-2')
      await resolvePendingTransactionAtOnce(deps, { environment: 'test', transactionId: ltx }, 'void')
      expect(await balance()).toBe(before)
      expect((await statuses(ltx)).map((s) => s.status)).toEqual(['voided', 'voided'])
      const error = await resolvePendingTransactionAtOnce(
        deps,
        { environment: 'test', transactionId: ltx },
        'post',
      ).catch((e: unknown) => e)
      expect(isAppError(error) ? error.code : error).toBe('pending_transfer_already_resolved')
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('edge: more legs than one statement takes, or an unknown transaction, go the step-by-step way', async () => {
      const ltx = await reserve('at-once-3', atOnceMaxLegs + 1)
      await resolvePendingTransactionAtOnce(deps, { environment: 'test', transactionId: ltx }, 'post')
      expect(await resolutions(ltx)).toHaveLength(atOnceMaxLegs + 1)
      const error = await resolvePendingTransactionAtOnce(
        deps,
        { environment: 'test', transactionId: 'ltx_unknown' },
        'post',
      ).catch((e: unknown) => e)
      expect(isAppError(error) ? error.code : error).toBe('not_found')
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: concurrent posts of one transaction post it once', async () => {
      const before = await balance()
      const ltx = await reserve('at-once-4')
      const ids = await Promise.all(
        Array.from({ length: 12 }, () =>
          resolvePendingTransactionAtOnce(deps, { environment: 'test', transactionId: ltx }, 'post'),
        ),
      )
      expect(new Set(ids).size).toBe(1)
      expect(await resolutions(ltx)).toHaveLength(2)
      expect(await balance()).toBe((before ?? 0n) - 20n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })
  },
  { poolSize: 20 },
)
