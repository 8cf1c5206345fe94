import { beforeAll, expect, test } from 'vitest'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { getBalances } from '../ledger/get-balances.js'
import { setPayoutDailyLimit } from '../merchants/verify-merchant.js'
import { fundBalance } from '../sandbox/fund-sandbox-merchant.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createPayoutHarness, type PayoutHarness } from '../testing/payout-harness.js'

// On PostgreSQL these requests really run in parallel on separate connections (pool of 80); on
// PGlite they are serialised by the dialect. Either way the outcomes must be exact.

type Answer = {
  status: number
  code: string | undefined
  id: string | undefined
  payoutStatus: string | undefined
}

describeEachDatabase(
  'payouts under concurrency',
  (getDb) => {
    let h: PayoutHarness
    let recipientId: string
    let recipientB: string
    const pay = (json: Record<string, unknown>) => payAs(h.a.testKey, json)
    const payAs = async (key: string, json: Record<string, unknown>): Promise<Answer> => {
      const res = await h.request('/api/v1/payouts', { method: 'POST', key, json })
      const body = (await res.json()) as {
        data: { id: string; status: string } | null
        error?: { code: string }
      }
      return {
        status: res.status,
        code: body.error?.code,
        id: body.data?.id,
        payoutStatus: body.data?.status,
      }
    }
    const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length

    beforeAll(async () => {
      h = await createPayoutHarness(getDb())
      const res = await h.request('/api/v1/recipients', {
        method: 'POST',
        json: {
          type: 'crypto_address',
          details: { chain: 'base', address: '0x8ba1f109551bD432803012645Ac136ddd64DBA72' },
        },
      })
      recipientId = ((await res.json()) as { data: { id: string } }).data.id
      // Sends stay pending, so every accepted payout keeps its reserve while the others race.
      h.rails.cryptoMode.value = 'pending'
    })

    test('64 concurrent payouts against a balance that covers 10 give exactly 10', async () => {
      // 10 x (1 USDC + 0.10 fee)
      await fundBalance(h.deps, { merchantId: h.a.id, currency: 'USDC', amount: '11' })
      const answers = await Promise.all(
        Array.from({ length: 64 }, () => pay({ currency: 'USDC', recipientId, amount: '1' })),
      )
      expect(count(answers, 201)).toBe(10)
      expect(
        answers
          .filter((a) => a.status !== 201)
          .every((a) => a.status === 400 && a.code === 'insufficient_balance'),
      ).toBe(true)
      expect(answers.filter((a) => a.status === 201).every((a) => a.payoutStatus === 'processing')).toBe(true)
      const usdc = (await getBalances(h.deps, { merchantId: h.a.id, environment: 'test' })).find(
        (b) => b.currency === 'USDC',
      )
      expect(usdc?.available).toBe(0n)
      const payouts = await h.deps.db
        .selectFrom('payouts')
        .select('id')
        .where('merchant_id', '=', h.a.id)
        .execute()
      expect(payouts).toHaveLength(10)
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('50 concurrent POSTs with one reference create one payout', async () => {
      await fundBalance(h.deps, { merchantId: h.a.id, currency: 'USDC', amount: '100' })
      const json = { currency: 'USDC', recipientId, amount: '2', reference: 'race-ref-1' }
      const answers = await Promise.all(Array.from({ length: 50 }, () => pay(json)))
      expect(count(answers, 201)).toBe(50)
      expect(new Set(answers.map((a) => a.id)).size).toBe(1)
      const rows = await h.deps.db
        .selectFrom('payouts')
        .select('id')
        .where('reference', '=', 'race-ref-1')
        .execute()
      expect(rows).toHaveLength(1)
      expect(h.rails.calls.get(rows[0]?.id ?? '')).toBe(1)
    })

    // Merchant B: its own balance and daily usage. Concurrent reserves of one merchant are coalesced
    // into batches (docs/payouts.md "Coalesced reserves"); each payout keeps its own answer and rows.
    test('30 concurrent payouts of one merchant: each its own payout, ledger transaction and balance row', async () => {
      const b = await h.request('/api/v1/recipients', {
        key: h.b.testKey,
        method: 'POST',
        json: {
          type: 'crypto_address',
          details: { chain: 'base', address: '0x8ba1f109551bD432803012645Ac136ddd64DBA72' },
        },
      })
      recipientB = ((await b.json()) as { data: { id: string } }).data.id
      await fundBalance(h.deps, { merchantId: h.b.id, currency: 'USDC', amount: '100' })
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          payAs(h.b.testKey, { currency: 'USDC', recipientId: recipientB, amount: String(1 + (i % 3)) }),
        ),
      )
      expect(count(answers, 201)).toBe(30)
      const rows = await h.deps.db
        .selectFrom('payouts')
        .select(['id', 'ledger_transaction_id', 'total'])
        .where('merchant_id', '=', h.b.id)
        .execute()
      expect(rows).toHaveLength(30)
      expect(new Set(rows.map((r) => r.ledger_transaction_id)).size).toBe(30)
      const reserves = await h.deps.db
        .selectFrom('balance_transactions')
        .select(['source_id', 'amount'])
        .where('merchant_id', '=', h.b.id)
        .where('source', '=', 'payout')
        .execute()
      expect(reserves).toHaveLength(60)
      expect(new Set(reserves.map((r) => r.source_id))).toEqual(new Set(rows.map((r) => r.id)))
      // 10 x 1, 10 x 2, 10 x 3 USDC, each with its 0.10 fee: 63 USDC.
      const usdc = (await getBalances(h.deps, { merchantId: h.b.id, environment: 'test' })).find(
        (x) => x.currency === 'USDC',
      )
      expect(usdc?.available).toBe(37_000_000n)
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('the daily limit holds under concurrency: a limit for 5 gives exactly 5 of 20', async () => {
      const used = await h.deps.db
        .selectFrom('payout_daily_usage')
        .select('used')
        .where('merchant_id', '=', h.b.id)
        .executeTakeFirstOrThrow()
      // What B used so far plus 5 x (1 USDC + 0.10 fee), in USD.
      const limit = BigInt(used.used) + 5n * 1_100_000n
      await setPayoutDailyLimit(h.deps, {
        merchantId: h.b.id,
        limitUsd: `${limit / 1_000_000n}.${(limit % 1_000_000n).toString().padStart(6, '0')}`,
      })
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          payAs(h.b.testKey, { currency: 'USDC', recipientId: recipientB, amount: '1' }),
        ),
      )
      expect(count(answers, 201)).toBe(5)
      expect(
        answers
          .filter((a) => a.status !== 201)
          .every((a) => a.status === 400 && a.code === 'daily_limit_exceeded'),
      ).toBe(true)
      const usage = await h.deps.db
        .selectFrom('payout_daily_usage')
        .select('used')
        .where('merchant_id', '=', h.b.id)
        .executeTakeFirstOrThrow()
      expect(BigInt(usage.used)).toBe(limit)
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('a quote used by two concurrent payouts pays once', async () => {
      await h.deps.db.updateTable('merchants').set({ verified: true }).where('id', '=', h.a.id).execute()
      await fundBalance(h.deps, { merchantId: h.a.id, currency: 'USDT', amount: '100' })
      const kes = await h.request('/api/v1/recipients', {
        method: 'POST',
        json: {
          type: 'kes_mobile_money',
          details: { phoneNumber: '+254712345678', accountName: 'W K', institutionCode: 'MPESA' },
        },
      })
      const kesId = ((await kes.json()) as { data: { id: string } }).data.id
      const quote = await h.request('/api/v1/payouts/cross-border/quote', {
        method: 'POST',
        json: { currency: 'KES', sourceCurrency: 'USDT', sourceAmount: '10' },
      })
      const { id: quoteId } = (await quote.json()) as { id: string }
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => pay({ currency: 'KES', recipientId: kesId, quoteId })),
      )
      expect(count(answers, 201)).toBe(1)
      expect(answers.filter((a) => a.status === 400).map((a) => a.code)).toEqual(
        Array(7).fill('quote_already_used'),
      )
    })
  },
  { poolSize: 80 },
)
