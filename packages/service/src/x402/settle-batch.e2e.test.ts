import type { FacilitatorClient, FacilitatorRequest } from '@tollgate/core'
import { type KyselyPlugin, RawNode } from 'kysely'
import type { Hex } from 'viem'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { createApiKey } from '../auth/create-api-key.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { createMerchant } from '../merchants/create-merchant.js'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { balanceRows } from '../testing/ledger-fixtures.js'
import { signX402Payment, type X402SettleBody } from '../testing/x402-payment.js'

// Coalesced x402 credits (docs/x402-merchant.md "Coalesced credits"): credits that arrive while one
// runs go as one statement. To make them arrive together whatever the chain's timing, the test's
// facilitator holds each settle's credit hook until the whole burst has settled, then lets them go at
// once (the `lead` payments first), and it runs the hook for a repeated payment too (the real
// facilitator runs it only in the call that settled), so a duplicate can land in a batch.
let fixture: BaseDevnetFacilitator
beforeAll(async () => {
  fixture = await startBaseDevnetFacilitator()
})
afterAll(async () => {
  await fixture?.stop()
})

type Body = X402SettleBody
const nonceOf = (request: FacilitatorRequest | Body) =>
  (request.paymentPayload as Body['paymentPayload']).payload.authorization.nonce

type Burst = { size: number; lead: Set<string>; waiting: { nonce: string; go: () => void }[] }

describeEachDatabase(
  'POST /x402/settle coalesced credits',
  (getDb) => {
    let h: Harness
    let payerKey: Hex
    let burst: Burst | undefined
    // The credit statements sent to the database, failed ones included (the query log sees only
    // those that succeed): a CTE `x402_row` is a credit alone, `x402_rows` a batch (either may
    // start with the facilitator's outcome writes when its store is on the same handle).
    const sent = { alone: 0, batch: 0 }
    const countCredits: KyselyPlugin = {
      transformQuery: ({ node }) => {
        const text = RawNode.is(node) ? node.sqlFragments.join(' ') : ''
        if (/\bx402_rows as \(/.test(text)) {
          sent.batch += 1
        } else if (/\bx402_row as \(/.test(text)) {
          sent.alone += 1
        }
        return node
      },
      transformResult: async ({ result }) => result,
    }
    const release = (b: Burst) => {
      burst = undefined
      const ordered = [
        ...b.waiting.filter((w) => b.lead.has(w.nonce)),
        ...b.waiting.filter((w) => !b.lead.has(w.nonce)),
      ]
      for (const w of ordered) {
        w.go()
      }
    }
    const arrive = (request: FacilitatorRequest) =>
      new Promise<void>((go) => {
        const b = burst
        if (!b) {
          go()
          return
        }
        b.waiting.push({ nonce: nonceOf(request), go })
        if (b.waiting.length === b.size) {
          release(b)
        }
      })
    const client: FacilitatorClient = {
      verify: (request) => fixture.facilitator.verify(request),
      getSupported: () => fixture.facilitator.getSupported(),
      settle: async (request, options) => {
        const hook = options?.onSettled
        let ran = false
        const result = await fixture.facilitator.settle(
          request,
          hook
            ? {
                onSettled: async (settled) => {
                  ran = true
                  await arrive(request)
                  await hook(settled)
                },
              }
            : {},
        )
        if (hook && !ran && result.transaction !== '') {
          await arrive(request)
          await hook(result)
        }
        return result
      },
    }

    beforeAll(async () => {
      h = await createHarness(getDb().withPlugin(countCredits), {
        facilitator: client,
        rails: (base) => createRails(base, { networks: fixture.devnet.networks }),
      })
      const payer = fixture.devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
      payerKey = payer?.privateKey as Hex
    })
    beforeEach(() => {
      burst = undefined
    })

    const sign = (key: string) => signX402Payment(h, payerKey, { key })
    const settle = async (json: Body, key: string) => {
      const res = await h.request('/api/v1/x402/settle', { method: 'POST', json, key })
      return { status: res.status, body: (await res.json()) as { data: { txHash: string; status: string } } }
    }
    // Settles the payments concurrently, their credits held until all have settled (leads first).
    const settleBurst = async (payments: { json: Body; key: string }[], lead: Body[] = []) => {
      burst = { size: payments.length, lead: new Set(lead.map(nonceOf)), waiting: [] }
      sent.alone = 0
      sent.batch = 0
      const results = await Promise.all(payments.map((p) => settle(p.json, p.key)))
      return { results, credits: { ...sent } }
    }
    // The merchant's x402 balance rows in order: each must start where the one before ended.
    const credits = (merchantId: string) => balanceRows(h.deps.db, merchantId, 'x402')
    const expectChained = (rows: Awaited<ReturnType<typeof credits>>, start: bigint) => {
      let balance = start
      for (const row of rows) {
        expect([row.amount, row.before, row.after, row.status]).toEqual([
          '9950',
          String(balance),
          String(balance + 9950n),
          'completed',
        ])
        balance += 9950n
      }
    }
    const balanceOf = async (merchantId: string) => {
      const rows = await credits(merchantId)
      return BigInt(rows.at(-1)?.after ?? '0')
    }
    const newMerchant = async () => {
      const merchant = await createMerchant(h.deps, { name: 'Merchant C' })
      const { key } = await createApiKey(h.deps, { merchantId: merchant.id, environment: 'test' })
      return { id: merchant.id, key }
    }

    test('behavior: a burst of 6 settles of distinct payments credits each once in 2 statements (one alone, one batch of 5)', async () => {
      // Both merchants' accounts exist (a credit before), so the batch has nothing to create.
      await settle(await sign(h.a.testKey), h.a.testKey)
      await settle(await sign(h.b.testKey), h.b.testKey)
      const startA = await balanceOf(h.a.id)
      const startB = await balanceOf(h.b.id)
      const payments = await Promise.all(
        [h.a, h.b, h.a, h.b, h.a, h.a].map(async (m) => ({ json: await sign(m.testKey), key: m.testKey })),
      )
      const { results, credits: sentCredits } = await settleBurst(payments)
      expect(results.map((r) => [r.status, r.body.data.status])).toEqual(Array(6).fill([201, 'confirmed']))
      expect(new Set(results.map((r) => r.body.data.txHash)).size).toBe(6)
      // Without coalescing, six statements; with it, the first alone and the other five together.
      expect(sentCredits).toEqual({ alone: 1, batch: 1 })
      const rowsA = await credits(h.a.id)
      const rowsB = await credits(h.b.id)
      expectChained(rowsA.slice(-4), startA)
      expectChained(rowsB.slice(-2), startB)
      // Each settle's own answer is its own stored row, credited once.
      const hashes = results.map((r) => r.body.data.txHash).sort()
      expect([...rowsA.slice(-4), ...rowsB.slice(-2)].map((r) => r.txHash).sort()).toEqual(hashes)
      const stored = await h.deps.db
        .selectFrom('x402_transactions')
        .select(['tx_hash', 'merchant_id', 'credited', 'fee'])
        .where('tx_hash', 'in', hashes)
        .execute()
      expect(stored.map((s) => [s.credited, String(s.fee)])).toEqual(Array(6).fill([true, '50']))
      const fees = await h.deps.db
        .selectFrom('ledger_transfers')
        .innerJoin('ledger_transactions', 'ledger_transactions.id', 'ledger_transfers.transaction_id')
        .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_transfers.credit_account_id')
        .select(['ledger_transfers.amount', 'ledger_transfers.phase'])
        .where('ledger_accounts.code', '=', 'platform:fees')
        .where('ledger_transactions.tx_hash', 'in', hashes)
        .execute()
      expect(fees.map((f) => [String(f.amount), f.phase])).toEqual(Array(6).fill(['50', 'single']))
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('edge: a repeat of a credited payment beside a burst is refused before any credit; the burst credits each once', async () => {
      const repeated = await sign(h.b.testKey)
      const first = await settle(repeated, h.b.testKey)
      expect(first.status).toBe(201)
      const startB = await balanceOf(h.b.id)
      const fresh = await Promise.all([1, 2, 3].map(() => sign(h.b.testKey)))
      // One payment, one delivery: the repeat never reaches the credit queue.
      const [again, burst] = await Promise.all([
        settle(repeated, h.b.testKey),
        settleBurst(
          fresh.map((json) => ({ json, key: h.b.testKey })),
          [fresh[0] as Body],
        ),
      ])
      expect([again.status, JSON.stringify(again.body)]).toEqual([
        400,
        expect.stringContaining('duplicate_settlement'),
      ])
      expect(burst.results.map((r) => r.status)).toEqual([201, 201, 201])
      const rows = await credits(h.b.id)
      expect(rows.filter((r) => r.txHash === first.body.data.txHash)).toHaveLength(1)
      expect(
        rows
          .slice(-3)
          .map((r) => r.txHash)
          .sort(),
      ).toEqual(burst.results.map((r) => r.body.data.txHash).sort())
      expectChained(rows.slice(-3), startB)
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test("edge: a merchant's first credit in a batch (its account missing) falls back; every credit lands once", async () => {
      const c = await newMerchant()
      const startA = await balanceOf(h.a.id)
      const lead = await sign(h.a.testKey)
      const others = [
        { json: await sign(c.key), key: c.key },
        { json: await sign(h.a.testKey), key: h.a.testKey },
        { json: await sign(c.key), key: c.key },
      ]
      const { results, credits: sentCredits } = await settleBurst(
        [{ json: lead, key: h.a.testKey }, ...others],
        [lead],
      )
      expect(results.map((r) => [r.status, r.body.data.status])).toEqual(Array(4).fill([201, 'confirmed']))
      // The lead alone; the batch refused (C's account missing); the three alone, C's again once its
      // accounts exist. On PostgreSQL the three run on their own connections, so C's second may
      // start after the first's retry made the accounts and succeed at once (5 alone, not 6).
      expect(sentCredits.batch).toBe(1)
      expect([5, 6]).toContain(sentCredits.alone)
      const rowsC = await credits(c.id)
      expect(rowsC.map((r) => r.txHash).sort()).toEqual(
        [results[1], results[3]].map((r) => r?.body.data.txHash).sort(),
      )
      expectChained(rowsC, 0n)
      expectChained((await credits(h.a.id)).slice(-2), startA)
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })
  },
  { poolSize: 30 },
)
