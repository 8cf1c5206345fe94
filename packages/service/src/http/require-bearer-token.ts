import { createHash, timingSafeEqual } from 'node:crypto'
import { AppError } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'

/**
 * Middleware that answers 401 `unauthorized` (with `WWW-Authenticate: Bearer`) unless the request
 * carries `Authorization: Bearer <token>`, compared in constant time; with no token it lets all in.
 */
export function requireBearerToken(token: string | undefined): MiddlewareHandler {
  const expected = token === undefined ? undefined : digest(token)
  return async (c, next) => {
    if (expected) {
      const match = /^Bearer\s+(.+)$/i.exec(c.req.header('Authorization') ?? '')
      if (!match?.[1] || !timingSafeEqual(digest(match[1].trim()), expected)) {
        c.header('WWW-Authenticate', 'Bearer')
        throw new AppError('unauthorized', { message: 'a valid bearer token is required' })
      }
    }
    await next()
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
