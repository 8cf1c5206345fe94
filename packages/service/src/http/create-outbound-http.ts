import { promises as dns, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { Agent, request } from 'undici'
import { classifyAddress, type RefusedAddressClass } from './address-policy.js'

/** Resolves a host name to its addresses (default `dns.lookup` with `all`); tests pass a stub. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>

/** Options of {@link createOutboundHttp}. */
export type OutboundHttpOptions = {
  resolve?: Resolver
  /** Whole-request limit (connect, headers, body), default 15 s. */
  timeoutMs?: number
  /** Bytes of the response body kept; the rest is not read (default 4 KiB). */
  maxResponseBytes?: number
  /** Keep-alive connections per origin (default 16). */
  connections?: number
}

/** One outbound POST: `allowLoopback` lets it reach loopback (sandbox only, docs/webhooks.md). */
export type OutboundRequest = {
  url: string
  headers: Record<string, string>
  body: string
  allowLoopback: boolean
}

/** How an outbound request ended: a status and (capped) body, or an error code and message. */
export type OutboundResult = {
  statusCode: number | null
  body: string | null
  durationMs: number
  /** `address_refused`, `scheme_refused`, `invalid_url`, `timeout`, `connection_failed`, `redirect_not_followed`. */
  error: { code: string; message: string } | null
}

/** An HTTP client for URLs merchants give us (webhooks, callbacks) that cannot be turned against us. */
export type OutboundHttp = {
  post(input: OutboundRequest): Promise<OutboundResult>
  close(): Promise<void>
}

/** Thrown by the guarded lookup; `code` survives undici's wrapping. */
class AddressRefusedError extends Error {
  readonly code = 'ERR_ADDRESS_REFUSED'
  constructor(hostname: string, address: string, refused: RefusedAddressClass) {
    super(`${hostname} resolves to ${address} (${refused}), which outbound requests may not reach`)
  }
}

type Policy = 'public' | 'public_or_loopback' | 'loopback_only'

function isAllowedBy(policy: Policy, refused: RefusedAddressClass | null): boolean {
  if (policy === 'loopback_only') {
    return refused === 'loopback'
  }
  return refused === null || (policy === 'public_or_loopback' && refused === 'loopback')
}

/**
 * A `lookup` for `net.connect` that resolves with `resolve` and refuses the connection when any
 * address of the name is outside `policy`, so a name that resolves to an internal address (or
 * alternates between a public and an internal one) is never connected to.
 */
export function createGuardedLookup(resolve: Resolver, policy: Policy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          const refused = classifyAddress(address)
          if (!isAllowedBy(policy, refused)) {
            callback(new AddressRefusedError(hostname, address, refused ?? 'reserved'), '')
            return
          }
        }
        const [first] = addresses
        if (!first) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '')
        } else if (options.all) {
          callback(null, addresses)
        } else {
          callback(null, first.address, first.family)
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    )
  }
}

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true })

function errorCode(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code
    if (code === 'ERR_ADDRESS_REFUSED') {
      return code
    }
    if (typeof code === 'string' && current.cause === undefined) {
      return code
    }
  }
  return undefined
}

function toFailure(error: unknown): { code: string; message: string } {
  const message = error instanceof Error ? error.message : String(error)
  const code = errorCode(error)
  if (code === 'ERR_ADDRESS_REFUSED') {
    return { code: 'address_refused', message }
  }
  if (
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return { code: 'timeout', message }
  }
  return { code: 'connection_failed', message: code ? `${code}: ${message}` : message }
}

/**
 * Creates the outbound client: HTTPS only (plain http only to loopback, and only when the request
 * allows loopback), the resolved address checked at connect time by a custom `lookup` (IP literals
 * before any connection), no redirects followed, a whole-request timeout, and the response body cut
 * at `maxResponseBytes`.
 */
export function createOutboundHttp(options: OutboundHttpOptions = {}): OutboundHttp {
  const resolve = options.resolve ?? systemResolver
  const timeoutMs = options.timeoutMs ?? 15_000
  const maxResponseBytes = options.maxResponseBytes ?? 4_096
  const agent = (policy: Policy) =>
    new Agent({
      connections: options.connections ?? 16,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs, lookup: createGuardedLookup(resolve, policy) },
    })
  const agents: Record<Policy, Agent> = {
    public: agent('public'),
    public_or_loopback: agent('public_or_loopback'),
    loopback_only: agent('loopback_only'),
  }

  const choosePolicy = (input: OutboundRequest): Policy | { code: string; message: string } => {
    let url: URL
    try {
      url = new URL(input.url)
    } catch {
      return { code: 'invalid_url', message: `${input.url} is not a URL` }
    }
    if (url.username || url.password) {
      return { code: 'invalid_url', message: 'URLs with credentials are not allowed' }
    }
    let policy: Policy
    if (url.protocol === 'https:') {
      policy = input.allowLoopback ? 'public_or_loopback' : 'public'
    } else if (url.protocol === 'http:' && input.allowLoopback) {
      policy = 'loopback_only'
    } else {
      return { code: 'scheme_refused', message: `${url.protocol} URLs are not allowed; use https` }
    }
    // net.connect skips lookup for IP literals: check them here.
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (isIP(host) !== 0) {
      const refused = classifyAddress(host)
      if (!isAllowedBy(policy, refused)) {
        return { code: 'address_refused', message: `${host} (${refused ?? 'public'}) may not be reached` }
      }
    }
    return policy
  }

  return {
    async post(input) {
      const started = performance.now()
      const elapsed = () => Math.round(performance.now() - started)
      const policy = choosePolicy(input)
      if (typeof policy !== 'string') {
        return { statusCode: null, body: null, durationMs: elapsed(), error: policy }
      }
      try {
        const response = await request(input.url, {
          method: 'POST',
          dispatcher: agents[policy],
          headers: input.headers,
          body: input.body,
          signal: AbortSignal.timeout(timeoutMs),
        })
        const body = await readCapped(response.body, maxResponseBytes)
        const { statusCode } = response
        const error =
          statusCode >= 300 && statusCode < 400
            ? { code: 'redirect_not_followed', message: `HTTP ${statusCode}: redirects are not followed` }
            : null
        return { statusCode, body, durationMs: elapsed(), error }
      } catch (error) {
        return { statusCode: null, body: null, durationMs: elapsed(), error: toFailure(error) }
      }
    },
    async close() {
      await Promise.all(Object.values(agents).map((a) => a.close()))
    },
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk.subarray(0, limit - size))
    size += Math.min(chunk.length, limit - size)
    if (size >= limit) {
      // Stop reading: the rest of a large answer is neither downloaded nor kept.
      body.destroy()
      break
    }
  }
  return Buffer.concat(chunks).toString('utf8')
}
