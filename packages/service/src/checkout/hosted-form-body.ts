import { readBodyText } from '@tollgate/facilitator'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../http/app-env.js'

/** Default body limit of a hosted-page form post (16 KiB: the largest form, 50 product quantities, is about 3 KiB). */
export const defaultHostedFormLimitBytes = 16 * 1024

/**
 * Reads the body of a hosted-page POST up front with the API's reader, refusing one over `limitBytes`
 * with a 413 `payload_too_large` before anything parses it; the app's `drainUnreadBody` keeps the
 * connection usable (docs/input-limits.md). `c.req.parseBody()` then reads the cached text.
 */
export function createHostedFormBody(options: { limitBytes: number }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method === 'POST' || c.req.method === 'PUT' || c.req.method === 'PATCH') {
      const text = await readBodyText(c, options.limitBytes)
      // hono keeps the promise of each body read in `bodyCache`; parseBody builds its form from it.
      ;(c.req.bodyCache as unknown as { text?: Promise<string> }).text = Promise.resolve(text)
    }
    await next()
  }
}
