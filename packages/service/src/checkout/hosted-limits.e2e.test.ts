import { createKeepAliveClient } from '@tollgate/core/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Listening, listen } from '../sandbox/listen.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'

// docs/security.md "Hosted pages behind a proxy, body limits and CSP": hosted form posts are capped
// (413 payload_too_large, the connection stays usable), and forms may only post to our own origin.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const MiB = 1024 * 1024
const form = { 'content-type': 'application/x-www-form-urlencoded' }

describeEachDatabase('hosted form limits and CSP', (getDb) => {
  let h: Harness
  let server: Listening
  let session: Json
  let page: Json

  beforeAll(async () => {
    h = await createHarness(getDb(), { rails: createFakeSessionRails })
    // Served as `tollgate serve` serves it: the Node request is at hand.
    server = await listen((request, env) => h.app.fetch(request, env), { port: 0, host: '127.0.0.1' })
    const made = await h.request('/api/v1/payments', {
      method: 'POST',
      json: { title: 'Tea', amount: '5.00', currency: 'USD' },
    })
    session = ((await made.json()) as Json).data
    const created = await h.request('/api/v1/payments/pages', {
      method: 'POST',
      json: { title: 'Shop', currency: 'USD' },
    })
    page = ((await created.json()) as Json).data
  })
  afterAll(async () => {
    await server?.close()
  })

  const sessionsOfPage = async () =>
    ((await (await h.request(`/api/v1/payments?pageReference=${page.reference}`)).json()) as Json)
      .data as Json[]

  test('behavior: a 20 MiB form is refused with 413 payload_too_large on /checkout and /pay, nothing written', async () => {
    const big = `option=${'a'.repeat(20 * MiB)}`
    for (const path of [`/checkout/${session.reference}/address`, `/pay/${page.reference}`]) {
      const res = await h.app.request(path, { method: 'POST', headers: form, body: big })
      expect(res.status).toBe(413)
      expect(await res.text()).toContain('data-error-code="payload_too_large"')
    }
    // Without Content-Length (a stream): refused once the bytes read pass the limit.
    const chunked = new Blob([big]).stream()
    const streamed = await h.app.request(`/pay/${page.reference}`, {
      method: 'POST',
      headers: form,
      body: chunked,
      duplex: 'half',
    } as RequestInit)
    expect(streamed.status).toBe(413)
    expect(await sessionsOfPage()).toEqual([])
    const row = await h.deps.db
      .selectFrom('payment_sessions')
      .select('address')
      .where('reference', '=', session.reference)
      .executeTakeFirstOrThrow()
    expect(row.address).toBeNull()
  })

  test('behavior: an oversized form keeps the socket for the next request; a huge one closes it', async () => {
    const client = createKeepAliveClient(server.url)
    try {
      const answers = [
        await client.send('POST', `/pay/${page.reference}`, { body: Buffer.alloc(MiB, 97), headers: form }),
        await client.send('POST', `/checkout/${session.reference}/address`, {
          body: Buffer.alloc(MiB, 97),
          headers: form,
          chunked: true,
        }),
        await client.send('GET', `/pay/${page.reference}`),
      ]
      expect(answers.map((a) => a.status)).toEqual([413, 413, 200])
      expect(answers.slice(1).every((a) => a.reusedSocket)).toBe(true)
      expect(client.socketsOpened).toBe(1)
      const huge = await client.send('POST', `/pay/${page.reference}`, {
        body: Buffer.alloc(20 * MiB, 97),
        headers: form,
      })
      expect(huge).toMatchObject({ status: 413, connection: 'close' })
      expect((await client.send('GET', '/health')).status).toBe(200)
    } finally {
      client.close()
    }
  })

  test("behavior: hosted pages allow form posts to our origin only (form-action 'self')", async () => {
    for (const path of [`/checkout/${session.reference}`, `/pay/${page.reference}`, '/checkout/ps_unknown']) {
      const csp = (await h.app.request(path)).headers.get('content-security-policy') ?? ''
      const directives = csp.split(';').map((d) => d.trim())
      expect(directives).toContain("form-action 'self'")
      expect(csp).not.toMatch(/form-action[^;]*(http:|https:)/)
    }
  })

  test('behavior: both form posts still work and redirect (303) within our origin', async () => {
    const same = { ...form, 'sec-fetch-site': 'same-origin' }
    const pay = await h.app.request(`/pay/${page.reference}`, {
      method: 'POST',
      headers: same,
      body: 'amount=12',
    })
    expect(pay.status).toBe(303)
    const next = pay.headers.get('location') ?? ''
    expect(next).toMatch(/^\/checkout\/ps_/)
    const choose = await h.app.request(`${next}/address`, {
      method: 'POST',
      headers: same,
      body: new URLSearchParams({ option: 'USDC:base' }).toString(),
    })
    expect(choose.status).toBe(303)
    expect(choose.headers.get('location')).toBe(next)
    const html = await (await h.app.request(next)).text()
    expect(html).toMatch(/0x[0-9a-fA-F]{40}/)
  })
})
