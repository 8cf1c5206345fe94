import { expect, test } from 'vitest'
import { createRateLimiter } from '../http/rate-limit.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness } from '../testing/harness.js'
import { summarizeStatements } from '../testing/statement-log.js'

// Spec "Authentication" 2: a request without a valid key is answered 401, whatever its body. The
// order is throttle (by the key's display prefix, before any hash or lookup) → authenticate →
// read and parse the body (docs/security.md "Authentication before work").

const statements: string[] = []
const keyLookups = () => summarizeStatements(statements).filter((s) => s === 'select from api_keys').length
const unknownKey = `sk_test_${'ab'.repeat(32)}`
const broken = '{"currency": "USDT", "amount": '
const oversized = JSON.stringify({ currency: 'USDT', amount: '1', pad: 'x'.repeat(200 * 1024) })

describeEachDatabase(
  'authenticate before work',
  (getDb) => {
    test('conformance: no key, a malformed key or an unknown key with a broken or oversized body is 401', async () => {
      const h = await createHarness(getDb())
      const headers = { 'content-type': 'application/json' }
      for (const key of [null, 'sk_test_nope', unknownKey]) {
        for (const body of [broken, oversized]) {
          const res = await h.request('/api/v1/payouts', { method: 'POST', key, headers, body })
          expect([key, body.length, res.status]).toEqual([key, body.length, 401])
          expect(await res.json()).toMatchObject({
            success: false,
            data: null,
            error: { code: 'unauthorized' },
          })
        }
      }
      // With a valid key the body's own answers stay: 400 invalid_json, 413 payload_too_large.
      const bad = await h.request('/api/v1/payouts', { method: 'POST', headers, body: broken })
      expect([bad.status, ((await bad.json()) as { error: { code: string } }).error.code]).toEqual([
        400,
        'invalid_json',
      ])
      const big = await h.request('/api/v1/payouts', { method: 'POST', headers, body: oversized })
      expect(big.status).toBe(413)
    })

    test('hostile: made-up keys are throttled by their prefix before they are hashed and looked up', async () => {
      const h = await createHarness(getDb(), {
        rateLimiter: createRateLimiter({ limit: 3, windowMs: 60_000 }),
      })
      statements.length = 0
      // A key without the sk_ shape costs no lookup at all.
      expect((await h.request('/api/v1/balance', { key: 'guess' })).status).toBe(401)
      expect(keyLookups()).toBe(0)
      const answers: number[] = []
      for (let i = 0; i < 6; i++) {
        answers.push((await h.request('/api/v1/balance', { key: unknownKey })).status)
      }
      expect(answers).toEqual([401, 401, 401, 429, 429, 429])
      expect(keyLookups()).toBe(3)
      // Another prefix (merchant A's real key) has its own budget.
      expect((await h.request('/api/v1/balance')).status).toBe(200)
    })
  },
  { onQuery: (sql) => statements.push(sql) },
)
