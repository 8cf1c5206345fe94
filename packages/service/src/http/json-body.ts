import { AppError } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './app-env.js'

const jsonType = /^application\/([a-z0-9.+-]*\+)?json$/i

/**
 * Parses JSON bodies of POST/PUT/PATCH up front (hono caches the result for the validators):
 * malformed JSON is a 400 `invalid_json`, a non-JSON body a 415 `unsupported_media_type`.
 */
export function createJsonBodyParser(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method === 'POST' || c.req.method === 'PUT' || c.req.method === 'PATCH') {
      const text = await c.req.text()
      const type = c.req.header('content-type')?.split(';')[0]?.trim() ?? ''
      if (text.length > 0) {
        if (type && !jsonType.test(type)) {
          throw new AppError('unsupported_media_type', { message: 'Request bodies must be application/json' })
        }
        try {
          JSON.parse(text)
        } catch (cause) {
          throw new AppError('invalid_json', { message: 'Malformed JSON in request body', cause })
        }
      }
    }
    await next()
  }
}
