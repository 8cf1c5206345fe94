import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { describe, expect, test } from 'vitest'
import { createFacilitator, type FacilitatorDeps } from './create-facilitator.js'
import { createFacilitatorApp, type FacilitatorAppOptions } from './create-facilitator-app.js'
import type { Logger } from './logger.js'
import { buildFakeRequest, createFakeScheme } from './testing/create-fake-scheme.js'

function setup(options: FacilitatorAppOptions = {}, deps: Partial<FacilitatorDeps> = {}) {
  const scheme = createFakeScheme()
  const facilitator = createFacilitator({ schemes: [scheme], ...deps })
  const app = createFacilitatorApp(facilitator, options)
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', ...headers },
    })
  return { app, scheme, post }
}

describe('createFacilitatorApp', () => {
  test('default: POST /verify and /settle answer the x402 shapes', async () => {
    const { post, scheme } = setup()
    const verify = await post('/verify', buildFakeRequest())
    expect(verify.status).toBe(200)
    expect(await verify.json()).toEqual({
      isValid: true,
      payer: '0x00000000000000000000000000000000000000bb',
    })
    const settle = await post('/settle', buildFakeRequest())
    expect(settle.status).toBe(200)
    expect(await settle.json()).toEqual({
      success: true,
      transaction: scheme.broadcasts[0],
      network: 'eip155:84532',
      payer: '0x00000000000000000000000000000000000000bb',
    })
  })

  test('behavior: an invalid payment is HTTP 200 with the reason', async () => {
    const { post } = setup()
    const verify = await post('/verify', buildFakeRequest({ payload: { from: '0x0' } }))
    expect(verify.status).toBe(200)
    expect(await verify.json()).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_insufficient_balance',
    })
    const settle = await post('/settle', buildFakeRequest({ requirements: { network: 'eip155:1' } }))
    expect(settle.status).toBe(200)
    expect(await settle.json()).toMatchObject({
      success: false,
      errorReason: 'invalid_network',
      transaction: '',
    })
  })

  test('behavior: malformed JSON is 400 invalid_json', async () => {
    const { post } = setup()
    for (const path of ['/verify', '/settle']) {
      const response = await post(path, '{"x402Version": 2,')
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchInlineSnapshot(`
        {
          "error": "invalid_json",
          "message": "the request body is not valid JSON",
        }
      `)
    }
    expect((await post('/verify', '')).status).toBe(400)
  })

  test('behavior: missing or mistyped fields are 400 invalid_request with issues', async () => {
    const { post } = setup()
    const request = buildFakeRequest()
    const missing = await post('/settle', { x402Version: 2, paymentPayload: request.paymentPayload })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({
      error: 'invalid_request',
      issues: { paymentRequirements: expect.any(String) },
    })
    const mistyped = await post('/verify', {
      ...request,
      paymentRequirements: { ...request.paymentRequirements, amount: 10000 },
    })
    expect(mistyped.status).toBe(400)
    expect(await mistyped.json()).toMatchObject({
      issues: { 'paymentRequirements.amount': expect.any(String) },
    })
    const notObject = await post('/verify', [request])
    expect(notObject.status).toBe(400)
  })

  test('behavior: an unknown x402Version is 400 invalid_x402_version', async () => {
    const { post } = setup()
    const request = buildFakeRequest()
    const response = await post('/verify', {
      ...request,
      paymentPayload: { ...request.paymentPayload, x402Version: 7 },
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: 'invalid_x402_version' })
  })

  test('behavior: a body over the limit is 413', async () => {
    const { post } = setup({ bodyLimitBytes: 1024 })
    const big = buildFakeRequest({ payload: { padding: 'x'.repeat(2000) } })
    const response = await post('/settle', big)
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ error: 'payload_too_large' })
    const defaultLimit = setup()
    const huge = await defaultLimit.post(
      '/verify',
      buildFakeRequest({ payload: { padding: 'x'.repeat(70_000) } }),
    )
    expect(huge.status).toBe(413)
  })

  test('behavior: bearer auth guards every route but /health', async () => {
    const { app, post } = setup({ authToken: 's3cret' })
    const denied = await post('/verify', buildFakeRequest())
    expect(denied.status).toBe(401)
    expect(denied.headers.get('WWW-Authenticate')).toBe('Bearer')
    expect(await denied.json()).toMatchObject({ error: 'unauthorized' })
    expect((await post('/settle', buildFakeRequest(), { Authorization: 'Bearer wrong' })).status).toBe(401)
    expect((await post('/settle', buildFakeRequest(), { Authorization: 's3cret' })).status).toBe(401)
    expect((await app.request('/supported')).status).toBe(401)
    expect((await app.request('/metrics')).status).toBe(401)
    expect((await post('/verify', buildFakeRequest(), { Authorization: 'Bearer s3cret' })).status).toBe(200)
    const supported = await app.request('/supported', { headers: { Authorization: 'bearer s3cret' } })
    expect(supported.status).toBe(200)
    expect((await app.request('/health')).status).toBe(200)
  })

  test('behavior: with a token, /health shows store counts and signer balances only to its holder', async () => {
    const balances = [
      {
        network: 'eip155:84532',
        address: '0x000000000000000000000000000000000000fee1',
        symbol: 'ETH',
        balance: 10n ** 18n,
        decimals: 18,
      },
    ]
    let reads = 0
    const { app } = setup(
      { authToken: 's3cret' },
      {
        getBalances: async () => {
          reads += 1
          return balances
        },
      },
    )
    const open = await app.request('/health')
    expect(open.status).toBe(200)
    expect(await open.json()).toEqual({ status: 'ok' })
    const wrong = await app.request('/health', { headers: { Authorization: 'Bearer wrong' } })
    expect(await wrong.json()).toEqual({ status: 'ok' })
    expect(reads).toBe(0)
    const full = await app.request('/health', { headers: { Authorization: 'Bearer s3cret' } })
    expect(await full.json()).toMatchObject({
      status: 'ok',
      settlements: { settled: 0 },
      balances: [expect.objectContaining({ address: '0x000000000000000000000000000000000000fee1' })],
    })
  })

  test('behavior: GET /supported, /health and /metrics', async () => {
    const { app, post } = setup()
    expect(await (await app.request('/supported')).json()).toEqual({
      kinds: [
        { x402Version: 2, scheme: 'exact', network: 'eip155:84532' },
        { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
      ],
      extensions: [],
      signers: { 'eip155:*': ['0x000000000000000000000000000000000000fee1'] },
    })
    await post('/settle', buildFakeRequest())
    expect(await (await app.request('/health')).json()).toMatchObject({
      status: 'ok',
      settlements: { settled: 1 },
    })
    const metrics = await app.request('/metrics')
    expect(metrics.headers.get('Content-Type')).toContain('text/plain')
    expect(await metrics.text()).toContain('tollgate_facilitator_settle_duration_seconds_count')
  })

  test('behavior: unknown routes are 404 JSON; unexpected errors are a logged 500', async () => {
    const errors: unknown[] = []
    const logger: Logger = { debug() {}, info() {}, warn() {}, error: (fields) => errors.push(fields) }
    const scheme = createFakeScheme()
    const broken = {
      ...scheme,
      verify: async () => {
        throw new TypeError('bug')
      },
    }
    const app = createFacilitatorApp(createFacilitator({ schemes: [broken] }), { logger })
    expect((await app.request('/nope')).status).toBe(404)
    const response = await app.request('/verify', {
      method: 'POST',
      body: JSON.stringify(buildFakeRequest()),
    })
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: 'internal_error', message: 'internal error' })
    expect(errors).toHaveLength(1)
  })

  test('behavior: mounts under a prefix', async () => {
    const { app } = setup({ authToken: 't' })
    const root = new Hono().route('/facilitator', app)
    expect((await root.request('/facilitator/health')).status).toBe(200)
    expect((await root.request('/facilitator/supported')).status).toBe(401)
    const settle = await root.request('/facilitator/settle', {
      method: 'POST',
      body: JSON.stringify(buildFakeRequest()),
      headers: { Authorization: 'Bearer t' },
    })
    expect(await settle.json()).toMatchObject({ success: true })
  })
})

// Served by @hono/node-server the app reads bodies from the Node request, not a Web stream.
describe('createFacilitatorApp over @hono/node-server', () => {
  async function listen(options: FacilitatorAppOptions = {}) {
    const { app } = setup(options)
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(done)) }
  }

  test('behavior: verifies a body read from the Node request; malformed JSON is 400', async () => {
    const { url, close } = await listen()
    try {
      const body = JSON.stringify(buildFakeRequest())
      const verify = await fetch(`${url}/verify`, { method: 'POST', body })
      expect(await verify.json()).toMatchObject({ isValid: true })
      const broken = await fetch(`${url}/settle`, { method: 'POST', body: body.slice(0, -3) })
      expect(broken.status).toBe(400)
      expect(await broken.json()).toMatchObject({ error: 'invalid_json' })
    } finally {
      await close()
    }
  })

  test('behavior: a body over the limit is 413, declared or streamed without a length', async () => {
    const { url, close } = await listen({ bodyLimitBytes: 1024 })
    try {
      const big = JSON.stringify(buildFakeRequest({ payload: { padding: 'x'.repeat(2000) } }))
      const declared = await fetch(`${url}/verify`, { method: 'POST', body: big })
      expect(declared.status).toBe(413)
      // A stream body goes out chunked: no Content-Length, so the limit applies while reading.
      const chunks = [big.slice(0, 900), big.slice(900)]
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift()
          next === undefined ? controller.close() : controller.enqueue(new TextEncoder().encode(next))
        },
      })
      const streamed = await fetch(`${url}/settle`, {
        method: 'POST',
        body: stream,
        duplex: 'half',
      } as RequestInit)
      expect(streamed.status).toBe(413)
      expect(await streamed.json()).toMatchObject({ error: 'payload_too_large' })
      const small = await fetch(`${url}/verify`, { method: 'POST', body: JSON.stringify(buildFakeRequest()) })
      expect(small.status).toBe(200)
    } finally {
      await close()
    }
  })
})
