import { AppError } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'
import { LRUCache } from 'lru-cache'
import type { Deps } from '../deps.js'
import type { ApiKeyAuth, AppEnv } from '../http/app-env.js'
import { hashApiKey } from './api-key.js'
import { assertKeyEnvironmentAllowed } from './assert-key-environment-allowed.js'
import { authenticateApiKey } from './authenticate-api-key.js'

/** Most authenticated keys one process remembers; the least recently used is dropped beyond it. */
export const apiKeyCacheMax = 10_000

/**
 * Middleware requiring a valid, unrevoked `x-api-key`; sets `c.var.auth` or throws 401 `unauthorized`.
 *
 * A key that authenticated is remembered for `settings.apiKeyCacheTtlMs` (by its hash, never the key
 * itself), so a burst of requests costs one lookup instead of one each. That TTL is the revocation
 * bound: a key revoked elsewhere is refused here at most that long after (docs/service.md
 * "Authentication"). Unknown keys are never remembered, so a new key works at once and a flood of
 * made-up keys cannot fill the cache with anything but lookups.
 */
export function requireApiKey(deps: Pick<Deps, 'db' | 'settings' | 'clock'>): MiddlewareHandler<AppEnv> {
  const ttl = deps.settings.apiKeyCacheTtlMs
  // The TTL runs on the service's clock, so it is the same time every other expiry uses.
  const perf = { now: () => deps.clock.now().getTime() }
  const cache =
    ttl > 0
      ? new LRUCache<string, ApiKeyAuth>({ max: apiKeyCacheMax, ttl, perf, ttlResolution: 0 })
      : undefined
  return async (c, next) => {
    const key = c.req.header('x-api-key')
    if (!key) {
      throw new AppError('unauthorized', { message: 'Missing API key: send it in the x-api-key header' })
    }
    assertKeyEnvironmentAllowed(deps.settings, key)
    const hash = cache ? hashApiKey(key) : ''
    let auth = cache?.get(hash)
    if (!auth) {
      auth = await authenticateApiKey(deps, key)
      if (!auth) {
        throw new AppError('unauthorized', { message: 'Invalid or revoked API key' })
      }
      cache?.set(hash, auth)
    }
    c.set('auth', auth)
    await next()
  }
}
