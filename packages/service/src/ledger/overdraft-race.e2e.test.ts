import { isAppError } from '@tollgate/core'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createLedgerTestDeps, createTestMerchants, fundMerchant } from '../testing/ledger-fixtures.js'
import { merchantAccount } from './chart-of-accounts.js'
import { checkLedgerInvariants } from './check-ledger-invariants.js'
import { getBalances } from './get-balances.js'
import { createPendingTransfer, postTransaction } from './post-transaction.js'
import { postPendingTransfer, voidPendingTransfer } from './resolve-pending.js'

// Concurrency: on PostgreSQL these calls really run in parallel on separate connections (the pool
// has 40); on PGlite they are serialised by the dialect. Either way no merchant may go negative.

type Outcome = 'ok' | string

async function settle(promises: Promise<unknown>[]): Promise<Outcome[]> {
  return Promise.all(
    promises.map((p) =>
      p.then(
        () => 'ok',
        (e: unknown) => (isAppError(e) ? e.code : `unexpected: ${String(e)}`),
      ),
    ),
  )
}

const count = (outcomes: Outcome[], value: Outcome) => outcomes.filter((o) => o === value).length

describeEachDatabase(
  'ledger under concurrency',
  (getDb) => {
    let deps: ReturnType<typeof createLedgerTestDeps>
    beforeAll(() => {
      deps = createLedgerTestDeps(getDb())
    })

    const available = async (merchantId: string) =>
      (await getBalances(deps, { merchantId, environment: 'test' })).find((b) => b.currency === 'USDT')
        ?.available

    test('behavior: 64 concurrent debits of a balance that covers 10 never overdraw', async () => {
      const [m = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: m, amount: 1_000n })
      const outcomes = await settle(
        Array.from({ length: 64 }, (_, i) =>
          postTransaction(deps, {
            environment: 'test',
            idempotencyKey: `race-debit-${m}-${i}`,
            legs: [{ debit: merchantAccount(m), credit: 'platform:fees', amount: 100n, currency: 'USDT' }],
            source: 'fee',
          }),
        ),
      )
      expect(count(outcomes, 'ok')).toBe(10)
      expect(count(outcomes, 'insufficient_balance')).toBe(54)
      expect(await available(m)).toBe(0n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: concurrent reservations, posts and voids keep available >= 0', async () => {
      const [m = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: m, amount: 500n })
      const reserve = async (i: number) => {
        const pending = await createPendingTransfer(deps, {
          environment: 'test',
          idempotencyKey: `race-reserve-${m}-${i}`,
          legs: [{ debit: merchantAccount(m), credit: 'bank:sandbox', amount: 30n, currency: 'USDT' }],
          source: 'payout',
        })
        const transferId = pending.transfers[0]?.id ?? ''
        // Half are voided (money returns and may be reserved again), half posted.
        return i % 2 === 0
          ? voidPendingTransfer(deps, { environment: 'test', transferId })
          : postPendingTransfer(deps, { environment: 'test', transferId })
      }
      const outcomes = await settle(Array.from({ length: 48 }, (_, i) => reserve(i)))
      expect(outcomes.filter((o) => o !== 'ok' && o !== 'insufficient_balance')).toEqual([])
      const posted = (await getDb()
        .selectFrom('ledger_transfers as t')
        .innerJoin('ledger_accounts as a', 'a.id', 't.debit_account_id')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('a.code', '=', merchantAccount(m))
        .where('t.phase', '=', 'post')
        .executeTakeFirstOrThrow()) as { n: string }
      expect(await available(m)).toBe(500n - 30n * BigInt(posted.n))
      expect(await available(m)).toBeGreaterThanOrEqual(0n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: random transfers among 6 merchants in both directions never deadlock or overdraw', async () => {
      const merchants = await createTestMerchants(deps, 6)
      for (const merchantId of merchants) {
        await fundMerchant(deps, { merchantId, amount: 300n })
      }
      let seed = 7
      const next = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
        return seed % n
      }
      const outcomes = await settle(
        Array.from({ length: 120 }, (_, i) => {
          const from = next(6)
          const to = (from + 1 + next(5)) % 6
          return postTransaction(deps, {
            environment: 'test',
            idempotencyKey: `race-mesh-${merchants[0]}-${i}`,
            legs: [
              {
                debit: merchantAccount(merchants[from] ?? ''),
                credit: merchantAccount(merchants[to] ?? ''),
                amount: BigInt(1 + next(120)),
                currency: 'USDT',
              },
            ],
            source: 'adjustment',
          })
        }),
      )
      expect(outcomes.filter((o) => o !== 'ok' && o !== 'insufficient_balance')).toEqual([])
      let sum = 0n
      for (const merchantId of merchants) {
        const balance = (await available(merchantId)) ?? 0n
        expect(balance).toBeGreaterThanOrEqual(0n)
        sum += balance
      }
      expect(sum).toBe(6n * 300n)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('behavior: a pending transfer posted and voided concurrently resolves exactly once', async () => {
      const [m = ''] = await createTestMerchants(deps, 1)
      await fundMerchant(deps, { merchantId: m, amount: 100n })
      for (let round = 0; round < 5; round++) {
        const pending = await createPendingTransfer(deps, {
          environment: 'test',
          idempotencyKey: `race-resolve-${m}-${round}`,
          legs: [{ debit: merchantAccount(m), credit: 'bank:sandbox', amount: 10n, currency: 'USDT' }],
          source: 'payout',
        })
        const target = { environment: 'test' as const, transferId: pending.transfers[0]?.id ?? '' }
        const outcomes = await settle([
          postPendingTransfer(deps, target),
          voidPendingTransfer(deps, target),
          postPendingTransfer(deps, target),
          voidPendingTransfer(deps, target),
        ])
        // The winner's duplicate replays; the other resolution is refused.
        expect(count(outcomes, 'ok')).toBe(2)
        expect(count(outcomes, 'pending_transfer_already_resolved')).toBe(2)
        const resolutions = await getDb()
          .selectFrom('ledger_transfers')
          .select('phase')
          .where('pending_id', '=', target.transferId)
          .execute()
        expect(resolutions).toHaveLength(1)
      }
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })
  },
  { poolSize: 40 },
)
