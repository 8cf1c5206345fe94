import { expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness } from '../testing/harness.js'
import { createManualClock } from '../testing/manual-clock.js'
import { summarizeStatements } from '../testing/statement-log.js'
import { revokeApiKey } from './revoke-api-key.js'

const statements: string[] = []
const keyLookups = () => summarizeStatements(statements).filter((s) => s === 'select from api_keys').length

describeEachDatabase(
  'requireApiKey',
  (getDb) => {
    test('behavior: a burst of requests with one key costs one key lookup', async () => {
      const h = await createHarness(getDb())
      statements.length = 0
      for (let i = 0; i < 5; i++) {
        expect((await h.request('/api/v1/balance')).status).toBe(200)
      }
      expect(keyLookups()).toBe(1)
      // The other merchant's key is its own entry: one more lookup, and its own merchant.
      const other = await h.request('/api/v1/balance', { key: h.b.testKey })
      expect(other.status).toBe(200)
      expect(keyLookups()).toBe(2)
    })

    test('behavior: unknown keys are never remembered, each costs a lookup and a 401', async () => {
      const h = await createHarness(getDb())
      statements.length = 0
      const unknown = `sk_test_${'a'.repeat(64)}`
      for (let i = 0; i < 3; i++) {
        expect((await h.request('/api/v1/balance', { key: unknown })).status).toBe(401)
      }
      expect(keyLookups()).toBe(3)
    })

    test('edge: a revoked key stops working once its cache entry expires (the revocation bound)', async () => {
      const clock = createManualClock()
      const h = await createHarness(getDb(), { clock, settings: { apiKeyCacheTtlMs: 2_000 } })
      expect((await h.request('/api/v1/balance')).status).toBe(200)
      const row = await h.deps.db
        .selectFrom('api_keys')
        .select('id')
        .where('merchant_id', '=', h.a.id)
        .where('environment', '=', 'test')
        .executeTakeFirstOrThrow()
      await revokeApiKey(h.deps, { keyId: row.id })
      // Within the bound the remembered key still answers; past it, the lookup sees the revocation.
      clock.advance(1_999)
      expect((await h.request('/api/v1/balance')).status).toBe(200)
      clock.advance(2)
      expect((await h.request('/api/v1/balance')).status).toBe(401)
    })

    test('edge: a TTL of 0 looks the key up on every request', async () => {
      const h = await createHarness(getDb(), { settings: { apiKeyCacheTtlMs: 0 } })
      statements.length = 0
      for (let i = 0; i < 3; i++) {
        expect((await h.request('/api/v1/balance')).status).toBe(200)
      }
      expect(keyLookups()).toBe(3)
    })

    test('behavior: where test keys are refused (tollgate serve) a sk_test_ key is a 401 test_key_not_allowed before any lookup; live keys work', async () => {
      const h = await createHarness(getDb(), { settings: { allowTestKeys: false } })
      statements.length = 0
      const res = await h.request('/api/v1/balance', { key: h.a.testKey })
      expect(res.status).toBe(401)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('test_key_not_allowed')
      expect(keyLookups()).toBe(0)
      expect((await h.request('/api/v1/balance', { key: h.a.liveKey })).status).toBe(200)
      // The sandbox default accepts both.
      const sandbox = await createHarness(getDb())
      expect((await sandbox.request('/api/v1/balance', { key: sandbox.a.testKey })).status).toBe(200)
    })
  },
  { onQuery: (sql) => statements.push(sql) },
)
