import { isAppError } from '@tollgate/core'
import fc from 'fast-check'
import { beforeAll, expect, test } from 'vitest'
import type { Deps } from '../deps.js'
import { createLogger } from '../http/create-logger.js'
import { hotAccountCodes, merchantAccount } from '../ledger/chart-of-accounts.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { getAccountBalance, getBalances } from '../ledger/get-balances.js'
import type { LedgerCurrency } from '../ledger/ledger-currencies.js'
import { createRails } from '../rails/create-rails.js'
import { createDefaultSettings } from '../settings.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { setTestFxRates } from '../testing/fx-fixtures.js'
import { createLedgerTestDeps, createTestMerchants, fundMerchant } from '../testing/ledger-fixtures.js'
import { createSwapQuotation } from './create-swap-quotation.js'
import { executeSwap, swapLedgerKey } from './execute-swap.js'

type TestDeps = Pick<Deps, 'db' | 'ids' | 'rails' | 'settings'> & ReturnType<typeof createLedgerTestDeps>

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (isAppError(e) ? e.code : `unexpected: ${String(e)}`),
  )

describeEachDatabase(
  'executeSwap',
  (getDb) => {
    let deps: TestDeps
    let merchants: string[]
    beforeAll(async () => {
      const base = createLedgerTestDeps(getDb())
      const rails = createRails({ ...base, logger: createLogger({ level: 'silent' }) })
      await setTestFxRates(rails)
      deps = { ...base, rails, settings: createDefaultSettings() }
      merchants = await createTestMerchants(deps, 3)
      for (const merchantId of merchants) {
        await fundMerchant(deps, { merchantId, amount: 10_000_000_000n, currency: 'USDT' })
        await fundMerchant(deps, { merchantId, amount: 1_000_000_000n, currency: 'NGN' })
      }
    })
    const quote = (merchantId: string, from: LedgerCurrency, to: LedgerCurrency, sourceAmount: bigint) =>
      createSwapQuotation(deps, {
        merchantId,
        environment: 'test',
        fromCurrency: from,
        toCurrency: to,
        sourceAmount,
      })
    const run = (merchantId: string, quotationId: string) =>
      executeSwap(deps, { merchantId, environment: 'test', quotationId, format: 'current' })

    test('behavior: a quotation executed at 29 s succeeds, at 31 s it is quote_expired', async () => {
      const m = merchants[0] ?? ''
      const start = deps.clock.now().getTime()
      const early = await quote(m, 'USDT', 'NGN', 1_000_000n)
      const late = await quote(m, 'USDT', 'NGN', 1_000_000n)
      deps.clock.set(start + 29_000)
      expect((await run(m, early.id)).swap.status).toBe('completed')
      deps.clock.set(start + 31_000)
      expect(await outcome(run(m, late.id))).toBe('quote_expired')
      deps.clock.set(start + 30_000)
      expect(await outcome(run(m, late.id))).toBe('quote_expired')
      deps.clock.set(start)
    })

    test('behavior: 64 concurrent executions of one quotation make one swap', async () => {
      const m = merchants[1] ?? ''
      const quotation = await quote(m, 'USDT', 'NGN', 5_000_000n)
      const outcomes = await Promise.all(Array.from({ length: 64 }, () => outcome(run(m, quotation.id))))
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1)
      expect(outcomes.filter((o) => o === 'quote_already_used')).toHaveLength(63)
      const swaps = await deps.db
        .selectFrom('swaps')
        .selectAll()
        .where('quotation_id', '=', quotation.id)
        .execute()
      expect(swaps).toHaveLength(1)
      const transfers = await deps.db
        .selectFrom('ledger_transfers as t')
        .innerJoin('ledger_transactions as x', 'x.id', 't.transaction_id')
        .select('t.id')
        .where('x.idempotency_key', '=', swapLedgerKey(quotation.id))
        .execute()
      expect(transfers).toHaveLength(3)
      expect(await checkLedgerInvariants(deps)).toEqual([])
    })

    test('property: after any sequence of swaps the fx invariants hold', async () => {
      const currencies = ['USDT', 'NGN', 'USDC', 'KES'] as const
      const step = fc.record({
        merchant: fc.integer({ min: 0, max: 2 }),
        from: fc.constantFrom(...currencies),
        to: fc.constantFrom(...currencies),
        // Up to 4,000 units: some swaps overdraw (USDC and KES start empty) and must be refused.
        amount: fc.bigInt({ min: 1n, max: 4_000_000_000n }),
      })
      let executed = 0
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
          for (const s of steps) {
            const m = merchants[s.merchant] ?? ''
            const amount = s.from === 'NGN' || s.from === 'KES' ? s.amount / 10_000n + 1n : s.amount
            const quoted = await outcome(quote(m, s.from, s.to, amount).then((q) => run(m, q.id)))
            expect(['ok', 'insufficient_balance', 'validation_error']).toContain(quoted)
            executed += quoted === 'ok' ? 1 : 0
            expect(await checkLedgerInvariants(deps)).toEqual([])
            await expectFxInvariants(deps)
          }
        }),
        { numRuns: 12 },
      )
      expect(executed).toBeGreaterThan(5)
      for (const merchantId of merchants) {
        const balances = await getBalances(deps, { merchantId, environment: 'test' })
        expect(balances.every((b) => b.available >= 0n && b.total >= 0n)).toBe(true)
      }
    })
  },
  { poolSize: 70 },
)

// platform:fx takes in each swap's source amount and pays out the target plus the spread; the
// spread leaves the merchant for platform:fees. So per currency, from the swaps table alone:
// fx credits = sources, fx debits = targets + fees, fees credited by swaps = fees.
async function expectFxInvariants(deps: TestDeps): Promise<void> {
  const swaps = await deps.db.selectFrom('swaps').selectAll().execute()
  const sums = new Map<string, { source: bigint; target: bigint; fee: bigint }>()
  const sumOf = (c: string) => {
    const sum = sums.get(c) ?? { source: 0n, target: 0n, fee: 0n }
    sums.set(c, sum)
    return sum
  }
  for (const swap of swaps) {
    sumOf(swap.from_currency).source += BigInt(swap.source_amount)
    sumOf(swap.to_currency).target += BigInt(swap.target_amount)
    sumOf(swap.to_currency).fee += BigInt(swap.fee)
  }
  for (const [currency, sum] of sums) {
    // platform:fx is split into shards (docs/ledger.md, "Hot accounts"): the sums hold over them.
    const shards = await deps.db
      .selectFrom('ledger_accounts')
      .selectAll()
      .where('environment', '=', 'test')
      .where('code', 'in', hotAccountCodes('platform:fx'))
      .where('currency', '=', currency)
      .execute()
    const total = (column: 'credits_posted' | 'debits_posted') =>
      shards.reduce((n, shard) => n + BigInt(shard[column]), 0n)
    expect(total('credits_posted'), `platform:fx ${currency} credits`).toBe(sum.source)
    expect(total('debits_posted'), `platform:fx ${currency} debits`).toBe(sum.target + sum.fee)
    const fees = await getAccountBalance(deps, {
      environment: 'test',
      code: 'platform:fees',
      currency: currency as LedgerCurrency,
    })
    expect(fees.available, `platform:fees ${currency}`).toBe(sum.fee)
  }
  for (const merchantId of await listMerchantIds(deps)) {
    const merchant = await getAccountBalance(deps, {
      environment: 'test',
      code: merchantAccount(merchantId),
      currency: 'USDT',
    })
    expect(merchant.available >= 0n).toBe(true)
  }
}

async function listMerchantIds(deps: TestDeps): Promise<string[]> {
  const rows = await deps.db.selectFrom('swaps').select('merchant_id').distinct().execute()
  return rows.map((r) => r.merchant_id)
}
