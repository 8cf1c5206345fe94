import type { FacilitatorClient, SettleOptions } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet } from '@tollgate/devnet'
import { createPostgresSettlementStore, type Facilitator, type SettlementStore } from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'
import { sql } from 'kysely'
import type { Hex } from 'viem'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { createApiKey } from '../auth/create-api-key.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { createMerchant } from '../merchants/create-merchant.js'
import { createRails } from '../rails/create-rails.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { balanceRows } from '../testing/ledger-fixtures.js'
import { summarizeStatements } from '../testing/statement-log.js'
import { signX402Payment } from '../testing/x402-payment.js'

// POST /x402/settle with the facilitator's settlement store in the service's database (as the
// sandbox runs it): the merchant's credit runs in the facilitator's `onSettled` hook, in one
// statement with the facilitator's outcome write, and a settle whose hook did not run (or failed)
// writes it after.
let devnet: LocalDevnet
beforeAll(async () => {
  devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === 'eip155:84532') },
  })
})
afterAll(async () => {
  await devnet?.stop()
})

const statements: string[] = []

type Envelope<T> = { success: boolean; data: T; error?: { code: string } }

/** How the test facilitator treats the service's hook. */
type HookMode = 'pass' | 'fail-before' | 'fail-after'

describeEachDatabase(
  'POST /x402/settle credit in the settled hook',
  (getDb) => {
    let h: Harness
    let payerKey: Hex
    let facilitator: Facilitator
    let store: SettlementStore
    let close = () => {}
    let mode: HookMode = 'pass'
    // When set, each hook waits until `size` hooks are waiting, then all go at once: the first
    // credit runs alone and the others queue behind it into one batch.
    let barrier: { size: number; waiting: (() => void)[] } | undefined
    const arrive = () =>
      new Promise<void>((go) => {
        const b = barrier
        if (!b) {
          go()
          return
        }
        b.waiting.push(go)
        if (b.waiting.length === b.size) {
          barrier = undefined
          for (const waiting of b.waiting) {
            waiting()
          }
        }
      })
    let hookRuns = 0
    // The real facilitator, with the service's hook counted and, per `mode`, made to fail before
    // its credit (nothing written) or after it (the credit committed, the settle still failing).
    const client: FacilitatorClient = {
      verify: (request) => facilitator.verify(request),
      getSupported: () => facilitator.getSupported(),
      settle: (request, options?: SettleOptions) => {
        const hook = options?.onSettled
        return facilitator.settle(
          request,
          hook
            ? {
                database: options.database,
                onSettled: async (result, outcome) => {
                  hookRuns += 1
                  if (mode === 'fail-before') {
                    throw new Error('the hook failed before its credit')
                  }
                  await arrive()
                  await hook(result, outcome)
                  if (mode === 'fail-after') {
                    throw new Error('the hook failed after its credit')
                  }
                },
              }
            : {},
        )
      },
    }
    beforeAll(async () => {
      const db = getDb()
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
      store = await createPostgresSettlementStore({ db, schema: rows[0]?.schema ?? 'public' })
      ;({ facilitator, close } = await createDevnetFacilitator(devnet, { store }))
      h = await createHarness(db, {
        facilitator: client,
        rails: (base) => createRails(base, { networks: devnet.networks }),
      })
      const payer = devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
      payerKey = payer?.privateKey as Hex
    })
    afterAll(() => close())
    beforeEach(() => {
      mode = 'pass'
      barrier = undefined
      hookRuns = 0
    })

    const post = async <T>(path: string, json: unknown, key?: string) => {
      const res = await h.request(`/api/v1${path}`, { method: 'POST', json, ...(key ? { key } : {}) })
      return { status: res.status, body: (await res.json()) as Envelope<T> }
    }
    const signed = (key: string) => signX402Payment(h, payerKey, { key })
    const credits = async (merchantId: string) =>
      (await balanceRows(h.deps.db, merchantId, 'x402')).map((r) => [r.amount, r.txHash])
    const settledRows = async () => (await store.countByState()).settled

    test('default: the credit is written in the hook, in one statement with the facilitator’s outcome', async () => {
      const before = await settledRows()
      const body = await signed(h.a.testKey)
      statements.length = 0
      const settled = await post<{ txHash: string; status: string }>('/x402/settle', body)
      const during = [...statements]
      expect([settled.status, settled.body.data.status]).toEqual([201, 'confirmed'])
      expect(hookRuns).toBe(1)
      expect(await settledRows()).toBe(before + 1)
      // The claim, the broadcast, then one statement: the outcome, the x402 row and the ledger.
      expect(
        // The store names its table with its schema; the summary reads better without.
        summarizeStatements(during.map((s) => s.replace(/"\w+"\./g, ''))).filter((s) =>
          /x402_settlements|x402_transactions/.test(s),
        ),
      ).toEqual([
        'insert into x402_settlements',
        'update x402_settlements',
        'settled_outcome: update x402_settlements',
      ])
      expect(during.at(-1)).toContain('insert into "x402_transactions"')
      expect(await credits(h.a.id)).toEqual([['9950', settled.body.data.txHash]])
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('behavior: 20 concurrent settles of one payment run one hook, answer one and credit once', async () => {
      const request = await signed(h.b.testKey)
      const results = await Promise.all(
        Array.from({ length: 20 }, () => post<{ txHash: string }>('/x402/settle', request, h.b.testKey)),
      )
      // One payment, one delivery: one call is answered the transaction, the others refused.
      const answered = results.filter((r) => r.status === 201)
      expect(answered).toHaveLength(1)
      expect(results.filter((r) => r.status === 400)).toHaveLength(19)
      const hashes = new Set(answered.map((r) => r.body.data.txHash))
      expect(hookRuns).toBe(1)
      expect(await credits(h.b.id)).toEqual([['9950', [...hashes][0]]])
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('behavior: concurrent settles of different payments: each credit, alone or batched, takes its outcome write', async () => {
      const bodies = await Promise.all(Array.from({ length: 6 }, () => signed(h.b.testKey)))
      const before = await settledRows()
      const start = await credits(h.b.id)
      barrier = { size: 6, waiting: [] }
      statements.length = 0
      const results = await Promise.all(
        bodies.map((json) => post<{ txHash: string }>('/x402/settle', json, h.b.testKey)),
      )
      const during = [...statements]
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(201))
      expect(await settledRows()).toBe(before + 6)
      // One credit alone with its outcome write (`settled_outcome`), then one batch holding the
      // other five and theirs (`settled_outcomes`); the facilitator sent none by itself, so all six
      // outcomes (settledRows above) were written by the credit statements.
      const credited = during.filter((s) => /\bx402_rows? as \(/.test(s))
      expect(credited.map((s) => s.match(/^with "?(settled_outcomes?)"? as \(/)?.[1])).toEqual([
        'settled_outcome',
        'settled_outcomes',
      ])
      const alone = during.filter((s) => /^update "\w+"\."x402_settlements" set "state"/.test(s))
      expect(alone).toEqual([])
      expect((await credits(h.b.id)).length).toBe(start.length + 6)
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('behavior: a batch statement’s text is the same whatever the number of credits and outcome writes it holds', async () => {
      const batchTexts: string[] = []
      for (const size of [3, 5]) {
        const bodies = await Promise.all(Array.from({ length: size }, () => signed(h.b.testKey)))
        const before = await settledRows()
        barrier = { size, waiting: [] }
        statements.length = 0
        const results = await Promise.all(
          bodies.map((json) => post<{ txHash: string }>('/x402/settle', json, h.b.testKey)),
        )
        expect(results.map((r) => r.status)).toEqual(Array(size).fill(201))
        expect(await settledRows()).toBe(before + size)
        batchTexts.push(...statements.filter((s) => /\bx402_rows as \(/.test(s)))
      }
      // A batch of 2, then one of 4: one text, so one prepared statement on each connection.
      expect(batchTexts).toHaveLength(2)
      expect(new Set(batchTexts).size).toBe(1)
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('edge: a batch refused (a new merchant’s accounts missing) writes no outcome; each credit alone writes its own', async () => {
      // Two new merchants, C and D: whichever credit the chain settles first runs alone, so the
      // batch behind it always holds one of them, whose ledger accounts do not exist yet.
      const newMerchants = await Promise.all(
        ['Merchant C', 'Merchant D'].map(async (name) => {
          const merchant = await createMerchant(h.deps, { name })
          const { key } = await createApiKey(h.deps, { merchantId: merchant.id, environment: 'test' })
          return { id: merchant.id, key }
        }),
      )
      const [c, d] = newMerchants as [(typeof newMerchants)[0], (typeof newMerchants)[0]]
      const keys = [h.b.testKey, c.key, h.b.testKey, d.key]
      const bodies = await Promise.all(keys.map((k) => signed(k)))
      const before = await settledRows()
      barrier = { size: 4, waiting: [] }
      statements.length = 0
      const results = await Promise.all(
        bodies.map((json, i) => post<{ txHash: string }>('/x402/settle', json, keys[i])),
      )
      const during = [...statements]
      expect(results.map((r) => r.status)).toEqual(Array(4).fill(201))
      expect(await settledRows()).toBe(before + 4)
      // The log has only statements that succeeded: the refused batch is not there, and every
      // outcome went with a credit that ran alone.
      const credited = during.filter((s) => /\bx402_rows? as \(/.test(s))
      expect(
        credited.every((s) => /\bx402_row as \(/.test(s) && s.startsWith('with settled_outcome as (')),
      ).toBe(true)
      expect(credited).toHaveLength(4)
      expect(during.filter((s) => /^update "\w+"\."x402_settlements" set "state"/.test(s))).toEqual([])
      expect((await credits(c.id)).map((credit) => credit[1])).toEqual([results[1]?.body.data.txHash])
      expect((await credits(d.id)).map((credit) => credit[1])).toEqual([results[3]?.body.data.txHash])
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('behavior: a hook failing before its credit fails the settle; the retry credits once', async () => {
      const request = await signed(h.b.testKey)
      const start = await credits(h.b.id)
      const before = await settledRows()
      mode = 'fail-before'
      const failed = await post('/x402/settle', request, h.b.testKey)
      expect(failed.status).toBe(500)
      // The facilitator's own record is stored: the retry takes it and sends nothing again.
      expect(await settledRows()).toBe(before + 1)
      expect(await credits(h.b.id)).toEqual(start)
      mode = 'pass'
      const retried = await post<{ txHash: string }>('/x402/settle', request, h.b.testKey)
      expect(retried.status).toBe(201)
      expect(hookRuns).toBe(1)
      expect(await settledRows()).toBe(before + 1)
      expect(await credits(h.b.id)).toEqual([...start, ['9950', retried.body.data.txHash]])
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })

    test('behavior: a hook failing after its credit fails the settle; the retry credits nothing more', async () => {
      const request = await signed(h.a.testKey)
      const start = await credits(h.a.id)
      const before = await settledRows()
      mode = 'fail-after'
      const failed = await post('/x402/settle', request, h.a.testKey)
      expect(failed.status).toBe(500)
      // The outcome went with the credit: stored once, not written again after the hook failed.
      expect(await settledRows()).toBe(before + 1)
      const written = await credits(h.a.id)
      expect(written).toHaveLength(start.length + 1)
      mode = 'pass'
      const retried = await post<{ txHash: string }>('/x402/settle', request, h.a.testKey)
      expect(retried.status).toBe(201)
      expect(await credits(h.a.id)).toEqual(written)
      expect(written.at(-1)).toEqual(['9950', retried.body.data.txHash])
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
    })
  },
  { poolSize: 30, onQuery: (sql) => statements.push(sql) },
)
