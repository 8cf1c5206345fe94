import { AppError } from '@tollgate/core'
import type { Context, MiddlewareHandler } from 'hono'
import { LRUCache } from 'lru-cache'
import type { AppEnv } from './app-env.js'

/**
 * Options of {@link createRateLimiter}: `limit` requests per `windowMs` milliseconds per API key;
 * at most `maxKeys` keys are counted at once (default 100,000; the least recently seen go first).
 */
export type RateLimiterOptions = { limit: number; windowMs: number; maxKeys?: number; now?: () => number }

/** Result of one {@link RateLimiter.hit}: whether it is allowed, what remains, and ms until the window resets. */
export type RateLimitDecision = { allowed: boolean; remaining: number; resetInMs: number }

/** An in-memory fixed-window counter per key (one process; Redis takes this role when scaled out). */
export type RateLimiter = { limit: number; hit(key: string): RateLimitDecision }

/** Creates an in-memory fixed-window rate limiter. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now
  const windows = new LRUCache<string, { start: number; count: number }>({ max: options.maxKeys ?? 100_000 })
  let lastSweep = now()
  return {
    limit: options.limit,
    hit(key) {
      const at = now()
      const start = at - (at % options.windowMs)
      if (at - lastSweep > options.windowMs) {
        // Drop finished windows so idle keys do not accumulate.
        for (const [k, w] of windows.entries()) {
          if (w.start < start) {
            windows.delete(k)
          }
        }
        lastSweep = at
      }
      const current = windows.get(key)
      const window = current && current.start === start ? current : { start, count: 0 }
      window.count += 1
      windows.set(key, window)
      return {
        allowed: window.count <= options.limit,
        remaining: Math.max(0, options.limit - window.count),
        resetInMs: start + options.windowMs - at,
      }
    },
  }
}

/**
 * Middleware limiting each API key (after auth), or each `keyOf(c)` (the client IP of the public hosted
 * pages): `RateLimit-*` headers, 429 `rate_limited` with `Retry-After`.
 */
export function createRateLimitMiddleware(
  limiter: RateLimiter,
  keyOf: (c: Context<AppEnv>) => string = (c) => c.get('auth').keyId,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const decision = limiter.hit(keyOf(c))
    const resetSeconds = Math.max(1, Math.ceil(decision.resetInMs / 1000))
    const headers = {
      'RateLimit-Limit': String(limiter.limit),
      'RateLimit-Remaining': String(decision.remaining),
      'RateLimit-Reset': String(resetSeconds),
    }
    if (!decision.allowed) {
      throw new AppError('rate_limited', {
        message: `Rate limit of ${limiter.limit} requests exceeded; retry later`,
        context: { headers: { ...headers, 'Retry-After': String(resetSeconds) } },
      })
    }
    for (const [name, value] of Object.entries(headers)) {
      c.header(name, value)
    }
    await next()
    setMissingHeaders(c, headers)
  }
}

/**
 * Sets on the finished response the headers it lacks (one built without the headers set before
 * `next()`). Only then: hono's `c.header` on a finished response rebuilds it around its body
 * stream, so @hono/node-server writes it through a Web stream instead of at once (issue #15).
 */
export function setMissingHeaders(c: Context, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (c.res.headers.get(name) !== value) {
      c.header(name, value)
    }
  }
}
