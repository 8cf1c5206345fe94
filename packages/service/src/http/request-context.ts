import type { MiddlewareHandler } from 'hono'
import type { Logger } from 'pino'
import type { AppEnv } from './app-env.js'
import { setMissingHeaders } from './rate-limit.js'

const incomingId = /^req_[A-Za-z0-9_-]{1,64}$/

/** Options of {@link createRequestContext}. */
export type RequestContextOptions = {
  logger: Logger
  createId: () => string
  now?: () => number
}

/**
 * Sets `x-request-id` (a caller's `req_…` id is kept, anything else replaced), a child logger
 * carrying it, and logs one line per request with its status and latency in milliseconds.
 */
export function createRequestContext(options: RequestContextOptions): MiddlewareHandler<AppEnv> {
  const now = options.now ?? (() => performance.now())
  return async (c, next) => {
    const header = c.req.header('x-request-id')
    const requestId = header && incomingId.test(header) ? header : options.createId()
    const logger = options.logger.child({ requestId })
    c.set('requestId', requestId)
    c.set('logger', logger)
    c.header('x-request-id', requestId)
    const started = now()
    await next()
    setMissingHeaders(c, { 'x-request-id': requestId })
    const auth = c.get('auth')
    logger.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: Math.round((now() - started) * 100) / 100,
        ...(auth ? { merchantId: auth.merchantId, keyId: auth.keyId } : {}),
      },
      'request',
    )
  }
}
