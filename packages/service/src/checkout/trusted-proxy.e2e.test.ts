import { afterAll, expect, test } from 'vitest'
import { type Listening, listen } from '../sandbox/listen.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'

// docs/security.md "Hosted pages behind a proxy, body limits and CSP": behind a trusted proxy each
// customer has their own per-IP budget (taken from X-Forwarded-For, rightmost untrusted hop); from an
// untrusted peer the header is ignored, so it cannot buy fresh budgets.

const serve = async (db: Parameters<typeof createHarness>[0], trustedProxies: string[]) => {
  let h: Harness | undefined
  // Served as `tollgate serve` serves it: the socket's address is at hand (127.0.0.1 here).
  const server = await listen((request, env) => (h as Harness).app.fetch(request, env), {
    port: 0,
    host: '127.0.0.1',
  })
  h = await createHarness(db, {
    rails: createFakeSessionRails,
    settings: { publicBaseUrl: server.url, trustedProxies },
  })
  const made = await h.request('/api/v1/payments', {
    method: 'POST',
    json: { title: 'Tea', amount: '5.00', currency: 'USD' },
  })
  const reference = ((await made.json()) as { data: { reference: string } }).data.reference
  const open = (forwardedFor: string) =>
    fetch(`${server.url}/checkout/${reference}`, { headers: { 'x-forwarded-for': forwardedFor } })
  return { server, open }
}

describeEachDatabase('hosted pages behind a trusted proxy', (getDb) => {
  const servers: Listening[] = []
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()))
  })

  test('behavior: 130 checkout requests from different forwarded clients behind one trusted proxy do not block a new customer', async () => {
    const { server, open } = await serve(getDb(), ['127.0.0.1', '10.0.0.0/8'])
    servers.push(server)
    for (let i = 0; i < 130; i++) {
      // A client-written value at the left, then what the edge proxy (10.1.2.3) and ours appended.
      const res = await open(`6.6.6.6, 203.0.113.${i % 250}, 10.1.2.3`)
      expect(res.status).toBe(200)
      await res.arrayBuffer()
    }
    const customer = await open('198.51.100.7')
    expect(customer.status).toBe(200)
  })

  test('behavior: a client varying the leftmost X-Forwarded-For behind the proxy still hits its own limit', async () => {
    const { server, open } = await serve(getDb(), ['127.0.0.1'])
    servers.push(server)
    const statuses: number[] = []
    for (let i = 0; i < 121; i++) {
      const res = await open(`192.0.2.${i % 250}, 203.0.113.9`)
      statuses.push(res.status)
      await res.arrayBuffer()
    }
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true)
    expect(statuses[120]).toBe(429)
    expect((await open('203.0.113.10')).status).toBe(200)
  })

  test('behavior: a spoofed X-Forwarded-For from an untrusted peer is ignored', async () => {
    // Default settings (no trusted proxy), and a list that does not hold the peer.
    for (const trusted of [[], ['10.0.0.0/8']]) {
      const { server, open } = await serve(getDb(), trusted)
      servers.push(server)
      const statuses: number[] = []
      for (let i = 0; i < 121; i++) {
        const res = await open(`203.0.113.${i % 250}`)
        statuses.push(res.status)
        await res.arrayBuffer()
      }
      expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true)
      expect(statuses[120]).toBe(429)
    }
  })
})
