import { createHash } from 'node:crypto'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

type Balance = { currency: string; available: string }

async function countTransactions(h: Harness, key?: string): Promise<number> {
  const res = await h.request('/api/v1/balance/transactions', key === undefined ? {} : { key })
  return ((await res.json()) as { meta: { total: number } }).meta.total
}

describeEachDatabase('POST /sandbox/fund', (getDb) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb())
  })

  test('default: credits the caller and returns the new balance', async () => {
    const res = await h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      json: { currency: 'USDC', amount: '12.5' },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { success: boolean; data: Balance }
    expect(body).toMatchObject({ success: true, data: { currency: 'USDC', available: '12.500000' } })
    // Only the caller is credited: merchant B and A's live environment are untouched.
    for (const key of [h.b.testKey, h.a.liveKey]) {
      const other = (await (await h.request('/api/v1/balance', { key })).json()) as { data: Balance[] }
      expect(other.data).toEqual([])
    }
  })

  test('behavior: 404 for live keys, 401 without a key', async () => {
    const live = await h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      key: h.a.liveKey,
      json: { currency: 'USDC', amount: '1' },
    })
    expect(live.status).toBe(404)
    expect(await live.json()).toMatchObject({ error: { code: 'not_found' } })
    const anonymous = await h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      key: null,
      json: { currency: 'USDC', amount: '1' },
    })
    expect(anonymous.status).toBe(401)
    expect(await countTransactions(h, h.a.liveKey)).toBe(0)
  })

  test('behavior: bad input is a 4xx with a code and writes nothing', async () => {
    const before = await countTransactions(h)
    const cases: [unknown, string][] = [
      [{ currency: 'USDC', amount: 5 }, 'body.amount'],
      [{ currency: 'XYZ', amount: '5' }, 'body.currency'],
      [{ currency: 'USDC', amount: '0' }, 'body.amount'],
      [{ currency: 'USDC', amount: '-1' }, 'body.amount'],
      [{ currency: 'USDC', amount: '1.1234567' }, 'body.amount'],
      [{ currency: 'NGN', amount: '1.001' }, 'body.amount'],
      [{ currency: 'USDC', amount: '1e3' }, 'body.amount'],
      [{ currency: 'USDC' }, 'body.amount'],
      [[], 'body'],
    ]
    for (const [json, field] of cases) {
      const res = await h.request('/api/v1/sandbox/fund', { method: 'POST', json })
      expect(res.status, JSON.stringify(json)).toBe(400)
      const body = (await res.json()) as { error: { code: string; details: { field: string }[] } }
      expect(body.error.code).toBe('validation_error')
      expect(body.error.details[0]?.field, JSON.stringify(json)).toBe(field)
    }
    expect(await countTransactions(h)).toBe(before)
  })
})

describeEachDatabase('idempotency', (getDb) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb())
  })
  const fund = (key: string, json: unknown, apiKey?: string) =>
    h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      json,
      headers: { 'idempotency-key': key },
      ...(apiKey === undefined ? {} : { key: apiKey }),
    })

  test('same key and body replays the stored response once', async () => {
    const first = await fund('k-1', { currency: 'USDT', amount: '5' })
    expect(first.status).toBe(200)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const firstBody = await first.text()
    const count = await countTransactions(h)
    const again = await fund('k-1', { currency: 'USDT', amount: '5' })
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.text()).toBe(firstBody)
    expect(await countTransactions(h)).toBe(count)
  })

  test('same key, other body is 422 idempotency_key_reused', async () => {
    await fund('k-2', { currency: 'USDT', amount: '5' })
    const count = await countTransactions(h)
    const other = await fund('k-2', { currency: 'USDT', amount: '6' })
    expect(other.status).toBe(422)
    expect(await other.json()).toMatchObject({ error: { code: 'idempotency_key_reused' } })
    expect(await countTransactions(h)).toBe(count)
  })

  test('a claim in progress is 409 idempotency_key_in_use', async () => {
    const now = new Date()
    await getDb()
      .insertInto('idempotency_keys')
      .values({
        merchant_id: h.a.id,
        environment: 'test',
        key: 'k-busy',
        method: 'POST',
        path: '/api/v1/sandbox/fund',
        request_hash: createHash('sha256')
          .update(`POST /api/v1/sandbox/fund\n${JSON.stringify({ currency: 'USDT', amount: '5' })}`)
          .digest('hex'),
        state: 'in_progress',
        response_status: null,
        response_body: null,
        created_at: now,
        expires_at: new Date(now.getTime() + 60_000),
      })
      .execute()
    const res = await h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      json: { currency: 'USDT', amount: '5' },
      headers: { 'idempotency-key': 'k-busy' },
    })
    expect(res.status).toBe(409)
    expect(await res.json()).toMatchObject({ error: { code: 'idempotency_key_in_use' } })
  })

  test('concurrent duplicates: one runs, the other is 409 or a replay', async () => {
    const count = await countTransactions(h)
    const results = await Promise.all([
      fund('k-race', { currency: 'USDT', amount: '7' }),
      fund('k-race', { currency: 'USDT', amount: '7' }),
    ])
    const statuses = results.map((r) => r.status).sort()
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses)
    if (statuses[1] === 409) {
      const conflict = results.find((r) => r.status === 409)
      expect(await conflict?.json()).toMatchObject({ error: { code: 'idempotency_key_in_use' } })
    } else {
      expect(results.some((r) => r.headers.get('idempotent-replayed') === 'true')).toBe(true)
    }
    expect(await countTransactions(h)).toBe(count + 1)
  })

  test('keys are per merchant; validation failures release the key; expired keys are reusable', async () => {
    const b = await fund('k-1', { currency: 'USDT', amount: '5' }, h.b.testKey)
    expect(b.headers.get('idempotent-replayed')).toBeNull()
    expect(await countTransactions(h, h.b.testKey)).toBe(1)

    const bad = await fund('k-3', { currency: 'USDT', amount: 'five' })
    expect(bad.status).toBe(400)
    const good = await fund('k-3', { currency: 'USDT', amount: '5' })
    expect(good.status).toBe(200)
    expect(good.headers.get('idempotent-replayed')).toBeNull()

    await getDb()
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(0) })
      .where('key', '=', 'k-3')
      .execute()
    const count = await countTransactions(h)
    const fresh = await fund('k-3', { currency: 'USDT', amount: '9' })
    expect(fresh.status).toBe(200)
    expect(await countTransactions(h)).toBe(count + 1)
  })

  test('behavior: an over-long key is a validation_error', async () => {
    const res = await fund('k'.repeat(256), { currency: 'USDT', amount: '5' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: 'validation_error', param: 'Idempotency-Key' } })
  })
})
