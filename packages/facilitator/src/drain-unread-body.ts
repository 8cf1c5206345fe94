import { drainRequestBody, isUndrainable } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'

/**
 * hono middleware keeping keep-alive connections usable after an early answer (401, 413, 415, a
 * 400 before the body was read): once the response is built, what is left of the request body is
 * read and discarded in the background; a body declared too large to drain gets
 * `Connection: close` instead (see docs/input-limits.md "Keep-alive"). Served by
 * `@hono/node-server` with the Node request at hand, the server drains it itself.
 */
export function drainUnreadBody(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    if (isUndrainable(c.req.raw)) {
      c.header('Connection', 'close')
      return
    }
    if ((c.env as { incoming?: unknown } | undefined)?.incoming === undefined) {
      void drainRequestBody(c.req.raw)
    }
  }
}
