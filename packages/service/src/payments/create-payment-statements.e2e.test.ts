import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { summarizeStatements } from '../testing/statement-log.js'

// Pins the SQL of POST /payments (issue 13's benchmark path), so added round trips show up here.
const statements: string[] = []

describeEachDatabase(
  'POST /payments statement count',
  (getDb) => {
    let h: Harness
    beforeAll(async () => {
      h = await createHarness(getDb(), { rails: createFakeSessionRails })
    })

    test('behavior: POST /payments with a customer, asset and chain costs a fixed list of statements', async () => {
      const body = {
        title: 'Order 1',
        amount: '100.00',
        currency: 'USD',
        asset: 'USDC',
        chain: 'base',
        customer: { email: 'ada@example.com', firstName: 'Ada' },
      }
      expect((await h.request('/api/v1/payments', { method: 'POST', json: body })).status).toBe(200)
      statements.length = 0
      expect((await h.request('/api/v1/payments', { method: 'POST', json: body })).status).toBe(200)
      expect(summarizeStatements(statements)).toEqual([
        // No api_keys lookup: the key authenticated on the first request is remembered (auth/require-api-key.ts).
        'begin',
        'insert into customers', // upsert by e-mail
        'select from deposit_addresses', // an address already derived for this customer and chain
        'insert into address_counters', // else the next derivation index
        'insert into deposit_addresses',
        'insert into payment_sessions',
        'inserted: insert into jobs', // the expiry job and its NOTIFY
        'commit',
      ])
    })
  },
  { onQuery: (sql) => statements.push(sql) },
)
