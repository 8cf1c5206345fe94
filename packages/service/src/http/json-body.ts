import { AppError, findJsonHazard } from '@tollgate/core'
import { readBodyText } from '@tollgate/facilitator'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './app-env.js'

const jsonType = /^application\/([a-z0-9.+-]*\+)?json$/i

/**
 * Reads and parses JSON bodies of POST/PUT/PATCH up front (hono caches the text for the
 * validators): a body over `limitBytes` is a 413 `payload_too_large` (left for the app's
 * `drainUnreadBody`, so the connection stays usable), malformed JSON is a 400 `invalid_json`, a non-JSON body a 415 `unsupported_media_type`, and a
 * body nested deeper than 64 levels or holding U+0000 or an unpaired surrogate anywhere a 400
 * `validation_error` naming the field (docs/input-limits.md).
 */
export function createJsonBodyParser(options: { limitBytes: number }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method === 'POST' || c.req.method === 'PUT' || c.req.method === 'PATCH') {
      // From the Node request when served by @hono/node-server (no Web Request and body stream
      // built per request, docs/x402-merchant.md "Benchmark").
      const text = await readBodyText(c, options.limitBytes)
      // hono keeps the promise of each body read in `bodyCache` (though its type names the value).
      ;(c.req.bodyCache as unknown as { text?: Promise<string> }).text = Promise.resolve(text)
      const type = c.req.header('content-type')?.split(';')[0]?.trim() ?? ''
      if (text.length > 0) {
        if (type && !jsonType.test(type)) {
          throw new AppError('unsupported_media_type', { message: 'Request bodies must be application/json' })
        }
        let value: unknown
        try {
          value = JSON.parse(text)
        } catch (cause) {
          throw new AppError('invalid_json', { message: 'Malformed JSON in request body', cause })
        }
        const hazard = findJsonHazard(value)
        if (hazard) {
          const field = hazard.path === '' ? 'body' : `body.${hazard.path}`
          throw new AppError('validation_error', {
            message: `Invalid request: ${field}: ${hazard.message}`,
            context: {
              details: [{ field, message: hazard.message, code: 'invalid_json_value' }],
              ...(hazard.path === '' ? {} : { param: hazard.path }),
            },
          })
        }
        // The route's json validator reads the body through `c.req.json()`, which hono answers by
        // parsing the cached text again: it gets the value parsed here instead (issue #15).
        const parsed = Promise.resolve(value)
        c.req.json = <T>() => parsed as Promise<T>
      }
    }
    await next()
  }
}
