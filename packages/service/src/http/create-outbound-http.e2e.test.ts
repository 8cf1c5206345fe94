import type { LookupAddress } from 'node:dns'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  createGuardedLookup,
  createOutboundHttp,
  type OutboundHttp,
  type Resolver,
} from './create-outbound-http.js'

// Every name resolves through this stub: no test ever resolves or connects to a non-loopback address.
const stubAddresses: Record<string, LookupAddress[]> = {
  'loopback.test': [{ address: '127.0.0.1', family: 4 }],
  'private.test': [{ address: '10.0.0.7', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'cgnat.test': [{ address: '100.64.1.1', family: 4 }],
  'multicast.test': [{ address: '224.0.0.251', family: 4 }],
  'unspecified.test': [{ address: '0.0.0.0', family: 4 }],
  'v6-loopback.test': [{ address: '::1', family: 6 }],
  'v6-ula.test': [{ address: 'fd00::1', family: 6 }],
  'v6-link-local.test': [{ address: 'fe80::1', family: 6 }],
  'mapped.test': [{ address: '::ffff:192.168.0.1', family: 6 }],
  // A public first answer must not hide an internal second one.
  'mixed.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '10.0.0.1', family: 4 },
  ],
}
const resolved: string[] = []
const stubResolver: Resolver = async (hostname) => {
  resolved.push(hostname)
  const addresses = stubAddresses[hostname]
  if (!addresses) {
    throw Object.assign(new Error(`stub has no ${hostname}`), { code: 'ENOTFOUND' })
  }
  return addresses
}

describe('createOutboundHttp', () => {
  let server: Server
  let port: number
  let http: OutboundHttp
  const received: { path: string; body: string }[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => {
        body += chunk
      })
      req.on('end', () => {
        received.push({ path: req.url ?? '', body })
        if (req.url === '/redirect') {
          res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end()
        } else if (req.url === '/big') {
          res.writeHead(200).end('x'.repeat(100_000))
        } else if (req.url === '/slow') {
          setTimeout(() => res.writeHead(200).end('late'), 2_000)
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
    http = createOutboundHttp({ resolve: stubResolver, timeoutMs: 500 })
  })
  afterAll(async () => {
    await http.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const post = (url: string, allowLoopback: boolean) =>
    http.post({ url, headers: { 'content-type': 'application/json' }, body: '{"a":1}', allowLoopback })

  test('default: plain http to a loopback name is delivered when loopback is allowed', async () => {
    const result = await post(`http://loopback.test:${port}/hook`, true)
    expect(result).toMatchObject({ statusCode: 200, body: 'ok', error: null })
    expect(received.at(-1)).toEqual({ path: '/hook', body: '{"a":1}' })
  })

  test.each([
    'private.test',
    'metadata.test',
    'cgnat.test',
    'multicast.test',
    'unspecified.test',
    'v6-ula.test',
    'v6-link-local.test',
    'mapped.test',
    'mixed.test',
  ])('behavior: https to %s is refused at connect time, even with loopback allowed', async (host) => {
    const before = received.length
    for (const allowLoopback of [false, true]) {
      const result = await post(`https://${host}:${port}/hook`, allowLoopback)
      expect(result.statusCode).toBeNull()
      expect(result.error?.code).toBe('address_refused')
    }
    expect(resolved).toContain(host)
    expect(received.length).toBe(before)
  })

  test('behavior: loopback names and literals are refused unless loopback is allowed', async () => {
    for (const url of [
      `https://loopback.test:${port}/`,
      `https://v6-loopback.test:${port}/`,
      `https://127.0.0.1:${port}/`,
      `https://[::1]:${port}/`,
      `https://[::ffff:127.0.0.1]:${port}/`,
    ]) {
      const result = await post(url, false)
      expect(result.error?.code, url).toBe('address_refused')
    }
  })

  test('behavior: internal IP literals are refused before any connection', async () => {
    const before = received.length
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/',
      'https://[fe80::1]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
    ]) {
      const result = await post(url, true)
      expect(result.error?.code, url).toBe('address_refused')
    }
    expect(received.length).toBe(before)
  })

  test('behavior: plain http is refused without loopback permission, and to public names always', async () => {
    expect((await post(`http://loopback.test:${port}/`, false)).error?.code).toBe('scheme_refused')
    expect((await post('http://8.8.8.8/', true)).error?.code).toBe('address_refused')
    expect((await post('ftp://loopback.test/', true)).error?.code).toBe('scheme_refused')
    expect((await post('https://user:pw@loopback.test/', true)).error?.code).toBe('invalid_url')
  })

  test('behavior: redirects are not followed, bodies are capped at 4 KiB, slow receivers time out', async () => {
    const redirect = await post(`http://127.0.0.1:${port}/redirect`, true)
    expect(redirect).toMatchObject({ statusCode: 302, error: { code: 'redirect_not_followed' } })
    expect(received.some((r) => r.path === '/elsewhere')).toBe(false)
    const big = await post(`http://127.0.0.1:${port}/big`, true)
    expect(big.body).toHaveLength(4_096)
    const slow = await post(`http://127.0.0.1:${port}/slow`, true)
    expect(slow).toMatchObject({ statusCode: null, error: { code: 'timeout' } })
  })

  test('behavior: the guarded lookup answers both lookup forms net.connect uses', async () => {
    const lookup = createGuardedLookup(stubResolver, 'public_or_loopback')
    const single = await new Promise((resolve) =>
      lookup('loopback.test', {}, (error, address, family) => resolve({ error, address, family })),
    )
    expect(single).toEqual({ error: null, address: '127.0.0.1', family: 4 })
    const all = await new Promise((resolve) =>
      lookup('loopback.test', { all: true }, (_e, address) => resolve(address)),
    )
    expect(all).toEqual([{ address: '127.0.0.1', family: 4 }])
  })
})
