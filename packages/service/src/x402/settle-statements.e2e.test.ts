import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { balanceRows } from '../testing/ledger-fixtures.js'
import { summarizeStatements } from '../testing/statement-log.js'
import { signX402Payment } from '../testing/x402-payment.js'

// Pins the SQL of POST /x402/settle (issue 15's benchmark path), so added round trips show up here.
const statements: string[] = []
let fixture: BaseDevnetFacilitator
beforeAll(async () => {
  fixture = await startBaseDevnetFacilitator()
})
afterAll(async () => {
  await fixture?.stop()
})

describeEachDatabase(
  'POST /x402/settle statement count',
  (getDb) => {
    let h: Harness
    let payerKey: Hex
    beforeAll(async () => {
      h = await createHarness(getDb(), {
        facilitator: fixture.facilitator,
        rails: (base) => createRails(base, { networks: fixture.devnet.networks }),
      })
      const payer = fixture.devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
      payerKey = payer?.privateKey as Hex
    })
    const sign = (key?: string) => signX402Payment(h, payerKey, key ? { key } : {})
    const settle = async () => {
      const json = await sign()
      statements.length = 0
      const settled = await h.request('/api/v1/x402/settle', { method: 'POST', json })
      expect(settled.status).toBe(201)
      return summarizeStatements(statements)
    }

    test('behavior: a settle to the merchant x402 address costs one statement, ledger credit included', async () => {
      await settle()
      expect(await settle()).toEqual([
        // No api_keys lookup (auth/require-api-key.ts) and no deposit_addresses lookup: the payTo
        // verdict of the first settle is remembered (parse-x402-request.ts, PayToCache).
        // One statement, no BEGIN/COMMIT: the x402 row, the ledger transaction, the account counters,
        // the transfers (net and fee legs) and the balance transaction (ledger/posting-ctes.ts).
        'x402_row: insert into x402_transactions',
      ])
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
      const credits = await balanceRows(h.deps.db, h.a.id, 'x402')
      // 0.01 USDC less the 50 bps fee, twice; the second starts where the first ended.
      expect(credits.map((c) => [c.amount, c.before, c.after])).toEqual([
        ['9950', '0', '9950'],
        ['9950', '9950', '19900'],
      ])
      const fees = await h.deps.db
        .selectFrom('ledger_transfers')
        .innerJoin('ledger_accounts', 'ledger_accounts.id', 'ledger_transfers.credit_account_id')
        .select(['ledger_transfers.amount'])
        .where('ledger_accounts.code', '=', 'platform:fees')
        .execute()
      expect(fees.map((f) => String(f.amount))).toEqual(['50', '50'])
    })

    test('behavior: concurrent settles of different payments to one merchant each credit once, in order', async () => {
      const bodies = await Promise.all(Array.from({ length: 8 }, () => sign(h.b.testKey)))
      const results = await Promise.all(
        bodies.map((json) => h.request('/api/v1/x402/settle', { method: 'POST', json, key: h.b.testKey })),
      )
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(201))
      expect(await checkLedgerInvariants(h.deps)).toEqual([])
      const credits = await h.deps.db
        .selectFrom('balance_transactions')
        .select(['before_available', 'after_available'])
        .where('merchant_id', '=', h.b.id)
        .orderBy('after_available')
        .execute()
      // Each credit starts where another ended: no lost or interleaved counter update.
      expect(credits.map((c) => [String(c.before_available), String(c.after_available)])).toEqual(
        Array.from({ length: 8 }, (_, i) => [String(i * 9950), String((i + 1) * 9950)]),
      )
    })
  },
  { onQuery: (sql) => statements.push(sql) },
)
