import { beforeAll, expect, test, vi } from 'vitest'
import { jobsChannel, parseJobNotification } from '../jobs/enqueue-job.js'
import { openTokenAccountJobKind } from '../rails/chains/run-open-token-account-job.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { summarizeStatements } from '../testing/statement-log.js'
import { expireSessionJob } from './expire-payment-session.js'

// Pins the SQL of POST /payments and GET /payments/reference/{reference} (issue 13's benchmark
// paths), so added round trips show up here.
const statements: string[] = []

describeEachDatabase(
  'POST /payments statement count',
  (getDb, _engine, getOpened) => {
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
      statements.length = 0
      expect((await h.request('/api/v1/payments', { method: 'POST', json: body })).status).toBe(200)
      // The first session of the branch reserves a block of address indexes, committed on its own
      // before the session's statement (rails/chains/create-index-blocks.ts).
      const first = summarizeStatements(statements)
      expect(first.indexOf('insert into address_counters')).toBeGreaterThanOrEqual(0)
      expect(first.indexOf('insert into address_counters')).toBeLessThan(
        first.indexOf('upserted_customer: insert into customers'),
      )
      expect(first).not.toContain('begin')
      statements.length = 0
      expect((await h.request('/api/v1/payments', { method: 'POST', json: body })).status).toBe(200)
      // No api_keys lookup: the key authenticated on the first request is remembered
      // (auth/require-api-key.ts). No transaction: one statement whose CTEs upsert the customer by
      // e-mail, insert the deposit address (its index from the block reserved ahead, the session
      // being new), the expiry job and its NOTIFY, and the session.
      expect(summarizeStatements(statements)).toEqual(['upserted_customer: insert into customers'])
      const [statement] = statements
      for (const table of ['customers', 'deposit_addresses', 'jobs', 'payment_sessions']) {
        expect(statement).toMatch(new RegExp(`insert into "${table}"`))
      }
      expect(statement).toMatch(/pg_notify/)
    })

    test('behavior: the session statement notifies the job runners of its jobs: the Solana token account now, the expiry with its due time', async () => {
      const kinds: string[] = []
      const unlisten = await getOpened().notifications.listen(jobsChannel, (kind) => kinds.push(kind))
      try {
        const body = {
          title: 'Order 3',
          amount: '7.00',
          currency: 'USD',
          asset: 'USDC',
          chain: 'solana',
          customer: { email: 'cy@example.com' },
        }
        expect((await h.request('/api/v1/payments', { method: 'POST', json: body })).status).toBe(200)
        // One commit delivers the statement's notifications together.
        await vi.waitFor(() => expect(kinds).toContain(openTokenAccountJobKind), {
          timeout: 10_000,
          interval: 20,
        })
        const expiry = kinds.map(parseJobNotification).filter((n) => n.kind === expireSessionJob)
        expect(expiry).toHaveLength(1)
        expect(expiry[0]?.dueMs).toBeGreaterThan(Date.now())
      } finally {
        await unlisten()
      }
    })

    test('behavior: GET /payments/reference/{reference} is one select (the session and its customer)', async () => {
      const body = {
        title: 'Order 2',
        amount: '5.00',
        currency: 'USD',
        customer: { email: 'bo@example.com' },
      }
      const created = await h.request('/api/v1/payments', { method: 'POST', json: body })
      const { reference } = (await created.json()).data as { reference: string }
      statements.length = 0
      const read = await h.request(`/api/v1/payments/reference/${reference}`)
      expect(read.status).toBe(200)
      expect(((await read.json()).data as { customer: { email: string } }).customer.email).toBe(
        'bo@example.com',
      )
      expect(summarizeStatements(statements)).toEqual(['select from payment_sessions'])
      statements.length = 0
      expect(
        (await h.request(`/api/v1/payments/reference/${reference}?includeTransactions=true`)).status,
      ).toBe(200)
      expect(summarizeStatements(statements)).toEqual([
        'select from payment_sessions',
        'select from payment_session_transactions',
      ])
    })
  },
  { onQuery: (sql) => statements.push(sql) },
)
