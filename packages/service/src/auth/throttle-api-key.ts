import { AppError } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../http/app-env.js'
import { createRateLimitMiddleware, type RateLimiter } from '../http/rate-limit.js'
import { parseKeyEnvironment, toKeyPrefix } from './api-key.js'

/**
 * First middleware of `/api/v1`: a missing or malformed `x-api-key` is a 401 `unauthorized` at once
 * (no hash, no lookup, no body read); a well-formed one is counted against `limiter` under its
 * display prefix (`sk_test_1a2b3c`) before it is hashed or looked up, so a flood of made-up keys
 * is throttled as cheaply as real traffic (docs/security.md "Authentication before work").
 */
export function throttleApiKey(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  const limit = createRateLimitMiddleware(limiter, (c) => toKeyPrefix(c.req.header('x-api-key') ?? ''))
  return async (c, next) => {
    const key = c.req.header('x-api-key')
    if (!key) {
      throw new AppError('unauthorized', { message: 'Missing API key: send it in the x-api-key header' })
    }
    if (!parseKeyEnvironment(key)) {
      throw new AppError('unauthorized', { message: 'Invalid or revoked API key' })
    }
    await limit(c, next)
  }
}
