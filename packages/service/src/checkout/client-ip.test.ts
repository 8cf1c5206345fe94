import type { Context } from 'hono'
import { expect, test } from 'vitest'
import { createClientIpReader, isProxyRange } from './client-ip.js'

const request = (peer: string, forwardedFor?: string) =>
  ({
    env: {
      incoming: { socket: { remoteAddress: peer, remoteFamily: peer.includes(':') ? 'IPv6' : 'IPv4' } },
    },
    req: { header: (name: string) => (name === 'x-forwarded-for' ? forwardedFor : undefined) },
  }) as unknown as Context

test('without trusted proxies the socket address is the client, whatever X-Forwarded-For says', () => {
  const read = createClientIpReader([])
  expect(read(request('198.51.100.1', '203.0.113.5'))).toBe('198.51.100.1')
})

test('from a trusted peer the rightmost untrusted hop is the client; client-written values at the left are not', () => {
  const read = createClientIpReader(['10.0.0.0/8', '::1'])
  expect(read(request('10.0.0.2', '6.6.6.6, 203.0.113.5, 10.9.9.9'))).toBe('203.0.113.5')
  expect(read(request('::ffff:10.0.0.2', '203.0.113.5:4431'))).toBe('203.0.113.5')
  expect(read(request('::1', '[2001:db8::7]:443'))).toBe('2001:db8::7')
  // Every hop trusted: the furthest one. No header or garbage: the last address vouched for.
  expect(read(request('10.0.0.2', '10.0.0.9, 10.0.0.3'))).toBe('10.0.0.9')
  expect(read(request('10.0.0.2'))).toBe('10.0.0.2')
  expect(read(request('10.0.0.2', '203.0.113.5, nonsense'))).toBe('10.0.0.2')
  // An untrusted peer's header is ignored.
  expect(read(request('198.51.100.1', '203.0.113.5'))).toBe('198.51.100.1')
})

test('isProxyRange accepts addresses and CIDR ranges only', () => {
  expect(['10.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1'].every(isProxyRange)).toBe(true)
  expect(['10.0.0.0/33', 'proxy.local', '10.0.0.0/8/1', '', '::/129'].some(isProxyRange)).toBe(false)
})
