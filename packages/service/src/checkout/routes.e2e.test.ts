import { beforeAll, expect, test } from 'vitest'
import { createRateLimiter } from '../http/rate-limit.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

describeEachDatabase('hosted checkout routes', (getDb) => {
  let h: Harness
  let limited: Harness

  beforeAll(async () => {
    h = await createHarness(getDb(), { rails: createFakeSessionRails, checkout: { pollMs: 50 } })
    limited = await createHarness(getDb(), {
      rails: createFakeSessionRails,
      checkout: { rateLimiter: createRateLimiter({ limit: 2, windowMs: 60_000 }) },
    })
  })

  const open = async (harness: Harness = h): Promise<Json> => {
    const json = { title: 'Tea', amount: '5.00', currency: 'USD', metadata: { orderId: 'secret-42' } }
    const res = await harness.request('/api/v1/payments', { method: 'POST', json })
    expect(res.status).toBe(200)
    return ((await res.json()) as Json).data
  }
  const addressOf = async (session: Json) =>
    (
      await h.deps.db
        .selectFrom('payment_sessions')
        .select('address')
        .where('id', '=', session.id)
        .executeTakeFirstOrThrow()
    ).address
  const post = (session: Json, option: string, headers: Record<string, string> = {}) =>
    h.app.request(`/checkout/${session.reference}/address`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ option }).toString(),
    })

  test('the page needs no key, sends a nonce CSP and shows nothing private', async () => {
    const session = await open()
    const res = await h.app.request(`/checkout/${session.reference}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const html = await res.text()
    expect(html).toContain('Tea')
    expect(html).not.toContain('secret-42')
    expect(html).not.toContain(session.id)
  })

  test('an unknown reference is a 404 page', async () => {
    const res = await h.app.request('/checkout/ps_unknown')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(await res.text()).toContain('does not exist')
  })

  test('choosing a pair allocates the address and redirects to the page', async () => {
    const session = await open()
    const res = await post(session, 'USDC:base', { 'sec-fetch-site': 'same-origin' })
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`/checkout/${session.reference}`)
    expect(await addressOf(session)).toMatch(/^0x[0-9a-fA-F]{40}$/)
  })

  test('a pair not offered or a cross-site post is refused and writes nothing', async () => {
    const session = await open()
    const notOffered = await post(session, 'ETH:base')
    expect(notOffered.status).toBe(400)
    expect(await notOffered.text()).toContain('Choose one of the listed')
    const crossSite = await post(session, 'USDC:base', { 'sec-fetch-site': 'cross-site' })
    expect(crossSite.status).toBe(403)
    const otherOrigin = await post(session, 'USDC:base', { origin: 'https://evil.example' })
    expect(otherOrigin.status).toBe(403)
    expect(await addressOf(session)).toBeNull()
  })

  test('the event stream sends the public status only', async () => {
    const session = await open()
    const controller = new AbortController()
    const res = await h.app.request(`/checkout/${session.reference}/events`, { signal: controller.signal })
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const { value } = await reader.read()
    controller.abort()
    await reader.cancel()
    const text = new TextDecoder().decode(value)
    expect(text).toContain('event: status')
    const data = JSON.parse(text.split('data: ')[1]?.split('\n')[0] ?? '{}')
    expect(data).toEqual({
      status: 'choose',
      statusText: 'Choose how you want to pay',
      amountReceived: null,
      amountDue: null,
      redirectUrl: null,
    })
  })

  test('the hosted pages have their own per-IP rate limit', async () => {
    const session = await open(limited)
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      statuses.push((await limited.app.request(`/checkout/${session.reference}`)).status)
    }
    expect(statuses).toEqual([200, 200, 429])
    // The merchant API keeps its own per-key limit.
    expect((await limited.request(`/api/v1/payments/reference/${session.reference}`)).status).toBe(200)
  })
})
