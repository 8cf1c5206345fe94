import { BlockList, isIP } from 'node:net'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'

/** Reads the client address of a request (the key of the hosted pages' per-IP limits). */
export type ClientIpReader = (c: Context) => string

/** Whether `value` is an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`) usable as a trusted proxy. */
export function isProxyRange(value: string): boolean {
  const [address = '', prefix, ...rest] = value.trim().split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) {
    return false
  }
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
}

/**
 * Builds the reader of the client's address. With no trusted proxy it is the socket's address (a
 * client-sent `X-Forwarded-For` is ignored). When the socket peer is a trusted proxy (an address or
 * CIDR of `trustedProxies`), `X-Forwarded-For` is read from the right, skipping trusted hops: the
 * first untrusted address is the client, so a value the client wrote at the left is never believed.
 * Outside a Node server (in-process test requests) the socket is `unknown`.
 */
export function createClientIpReader(trustedProxies: readonly string[]): ClientIpReader {
  const trusted = new BlockList()
  for (const range of trustedProxies) {
    const [address = '', prefix] = range.trim().split('/')
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (prefix === undefined) {
      trusted.addAddress(address, type)
    } else {
      trusted.addSubnet(address, Number(prefix), type)
    }
  }
  const isTrusted = (address: string) => trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')
  return (c) => {
    const peer = socketAddress(c)
    if (trustedProxies.length === 0 || isIP(peer) === 0 || !isTrusted(peer)) {
      return peer
    }
    const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map(toAddress)
    let client = peer
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] ?? ''
      // A hop a trusted proxy did not write as an address: keep the last address we could vouch for.
      if (isIP(hop) === 0) {
        return client
      }
      client = hop
      if (!isTrusted(hop)) {
        return hop
      }
    }
    return client
  }
}

// One X-Forwarded-For entry as an address: trimmed, without [brackets] or an IPv4 `:port`.
function toAddress(entry: string): string {
  const value = entry.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value)
  if (bracketed) {
    return bracketed[1] ?? ''
  }
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value)
  return withPort ? (withPort[1] ?? '') : value
}

function socketAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    return 'unknown'
  }
}
