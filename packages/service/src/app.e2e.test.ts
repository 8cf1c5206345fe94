import { beforeAll, expect, test } from 'vitest'
import { revokeApiKey } from './auth/revoke-api-key.js'
import { createRateLimiter } from './http/rate-limit.js'
import { describeEachDatabase } from './testing/each-database.js'
import { createHarness, type Harness } from './testing/harness.js'

describeEachDatabase('createApp', (getDb) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb(), { bodyLimitBytes: 1024 })
  })

  test('default: success envelope with a request id', async () => {
    const res = await h.request('/api/v1/blockchain/confirmations')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/)
    const body = await res.json()
    expect(body).toMatchObject({ success: true, message: expect.any(String), data: { ethereum: 1 } })
  })

  test('behavior: a caller req_ id is kept, others are replaced', async () => {
    const kept = await h.request('/api/v1/blockchain/confirmations', {
      headers: { 'x-request-id': 'req_abc' },
    })
    expect(kept.headers.get('x-request-id')).toBe('req_abc')
    const replaced = await h.request('/api/v1/blockchain/confirmations', {
      headers: { 'x-request-id': 'evil id; drop' },
    })
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/)
  })

  test('behavior: an error a handler throws still answers with the request id and RateLimit-* headers', async () => {
    const res = await h.request('/api/v1/x402/transactions/0xnot-there', {
      headers: { 'x-request-id': 'req_failed' },
    })
    expect(res.status).toBe(404)
    expect(res.headers.get('x-request-id')).toBe('req_failed')
    expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/)
    expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/)
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'not_found' } })
  })

  test('auth: missing, malformed, unknown and revoked keys are 401 envelopes', async () => {
    const cases: (string | null)[] = [null, 'nope', `sk_test_${'0'.repeat(64)}`]
    for (const key of cases) {
      const res = await h.request('/api/v1/balance', { key })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({
        success: false,
        message: expect.any(String),
        data: null,
        error: { code: 'unauthorized' },
      })
    }
    // No key cache here: the revocation is seen at once (the cached case: auth/require-api-key.e2e.test.ts).
    const other = await createHarness(getDb(), { settings: { apiKeyCacheTtlMs: 0 } })
    expect((await other.request('/api/v1/balance', { key: other.a.testKey })).status).toBe(200)
    const [row] = await getDb()
      .selectFrom('api_keys')
      .select('id')
      .where('merchant_id', '=', other.a.id)
      .execute()
    await revokeApiKey(other.deps, { keyId: row?.id ?? '' })
    const revoked = await other.request('/api/v1/balance', { key: other.a.testKey })
    expect(revoked.status).toBe(401)
  })

  test('behavior: unknown route is a 404 envelope', async () => {
    const res = await h.request('/api/v1/nope')
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ success: false, data: null, error: { code: 'not_found' } })
    const outside = await h.request('/elsewhere', { key: null })
    expect(outside.status).toBe(404)
    expect(await outside.json()).toMatchObject({ error: { code: 'not_found' } })
  })

  test('behavior: malformed JSON is 400 invalid_json, oversized body 413, non-JSON 415', async () => {
    const malformed = await h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"currency": "USDT",',
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ success: false, error: { code: 'invalid_json' } })
    const big = await h.request('/api/v1/sandbox/fund', { method: 'POST', json: { pad: 'x'.repeat(2048) } })
    expect(big.status).toBe(413)
    expect(await big.json()).toMatchObject({ error: { code: 'payload_too_large' } })
    const text = await h.request('/api/v1/sandbox/fund', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    })
    expect(text.status).toBe(415)
    expect(await text.json()).toMatchObject({ error: { code: 'unsupported_media_type' } })
  })

  test('OpenAPI 3.1 lists the routes of every domain, /docs serves the UI', async () => {
    const res = await h.request('/api/v1/openapi.json', { key: null })
    expect(res.status).toBe(200)
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(doc.openapi).toBe('3.1.0')
    // Paths are absolute (/api/v1/...), so the server must not add the prefix a second time.
    expect((doc as { servers?: { url: string }[] }).servers).toEqual([{ url: '/' }])
    // Each domain's own tests pin its routes; this checks the app composes every domain.
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/balance',
        '/api/v1/balance/transactions',
        '/api/v1/balance/transactions/{id}',
        '/api/v1/blockchain/assets',
        '/api/v1/blockchain/confirmations',
        '/api/v1/blockchain/gas-fees',
        '/api/v1/recipients/banks',
        '/api/v1/recipients/chains',
        '/api/v1/sandbox/fund',
        '/api/v1/x402/requirements',
        '/api/v1/x402/verify',
        '/api/v1/x402/settle',
        '/api/v1/x402/supported',
        '/api/v1/x402/transactions',
        '/api/v1/x402/transactions/{txHash}',
      ]),
    )
    const docs = await h.request('/docs', { key: null })
    expect(docs.status).toBe(200)
    expect(await docs.text()).toContain('swagger')
  })

  test('conformance: every API operation documents its 500, and x402 requirements and supported are typed', async () => {
    type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] }
    type Operation = { responses: Record<string, unknown> }
    const doc = (await (await h.request('/api/v1/openapi.json', { key: null })).json()) as {
      paths: Record<string, Record<string, Operation>>
      components: { schemas: Record<string, Schema> }
    }
    // The runtime answers an unexpected failure with 500 `internal_error` on any route.
    const missing = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => !('500' in operation.responses))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    )
    expect(missing).toEqual([])
    // Spec: "201 data: x402Version, chain, asset, amount, accepts = array of {scheme, network, maxAmountRequired, …}".
    const requirements = doc.components.schemas.X402Requirements?.properties
    expect(Object.keys(requirements ?? {})).toEqual(
      expect.arrayContaining(['x402Version', 'chain', 'asset', 'amount', 'accepts']),
    )
    const v1 = doc.components.schemas.X402OfferV1?.properties ?? {}
    expect(Object.keys(v1)).toEqual(
      expect.arrayContaining(['scheme', 'network', 'maxAmountRequired', 'payTo', 'asset', 'extra']),
    )
    // Spec: "200 data.kinds = array of {x402Version, scheme, network, chain, assets[], extra}".
    const kinds = doc.components.schemas.X402Supported?.properties?.kinds?.items?.properties ?? {}
    expect(Object.keys(kinds).sort()).toEqual([
      'assets',
      'chain',
      'extra',
      'network',
      'scheme',
      'x402Version',
    ])
  })

  test('metrics: latency histogram by route template and status', async () => {
    await h.request('/api/v1/balance/transactions/btx_missing')
    const res = await h.request('/metrics', { key: null })
    const text = await res.text()
    expect(text).toContain('http_request_duration_seconds_bucket')
    expect(text).toMatch(/route="\/api\/v1\/balance\/transactions\/:id",status="404"/)
    expect(text).not.toContain('btx_missing')
  })

  test('logs: JSON lines with the request id, API key redacted', async () => {
    h.logs.length = 0
    await h.request('/api/v1/balance', { headers: { 'x-request-id': 'req_logged' } })
    const line = h.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === 'req_logged')
    expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/api/v1/balance', status: 200 })
    expect(h.logs.join('')).not.toContain(h.a.testKey)
  })
})

describeEachDatabase('rate limit', (getDb) => {
  test('behavior: 429 rate_limited with Retry-After past the limit, per key', async () => {
    let now = 1_000_000
    const h = await createHarness(getDb(), {
      rateLimiter: createRateLimiter({ limit: 2, windowMs: 10_000, now: () => now }),
    })
    for (let i = 0; i < 2; i++) {
      const ok = await h.request('/api/v1/blockchain/confirmations')
      expect(ok.status).toBe(200)
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(1 - i))
    }
    const limited = await h.request('/api/v1/blockchain/confirmations')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await limited.json()).toMatchObject({ success: false, error: { code: 'rate_limited' } })
    expect((await h.request('/api/v1/blockchain/confirmations', { key: h.b.testKey })).status).toBe(200)
    now += 10_000
    expect((await h.request('/api/v1/blockchain/confirmations')).status).toBe(200)
  })
})
