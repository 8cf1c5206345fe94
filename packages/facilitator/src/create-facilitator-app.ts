import { createHash, timingSafeEqual } from 'node:crypto'
import { AppError } from '@tollgate/core'
import { type Context, Hono, type MiddlewareHandler } from 'hono'
import type { Facilitator } from './create-facilitator.js'
import { drainUnreadBody } from './drain-unread-body.js'
import { getErrorStatus, toErrorBody } from './errors.js'
import { getCallerId } from './get-caller-id.js'
import { type Logger, silentLogger } from './logger.js'
import { parseFacilitatorRequest } from './parse-facilitator-request.js'
import { readBodyText } from './read-body-text.js'

// Bodies the app validated with parseFacilitatorRequest: the facilitator skips a second zod pass.
const PARSED = { parsed: true } as const

/** Options of {@link createFacilitatorApp}. */
export type FacilitatorAppOptions = {
  /**
   * When set, every route but `/health` needs `Authorization: Bearer <authToken>`, and `/health`
   * without it answers only `{ status: "ok" }` (no store counts, no signer balances).
   */
  authToken?: string
  /** Largest accepted request body in bytes (default 64 KiB); larger bodies get 413. */
  bodyLimitBytes?: number
  logger?: Logger
}

/**
 * The facilitator's HTTP API (x402 §2): `POST /verify`, `POST /settle` (body `{ x402Version,
 * paymentPayload, paymentRequirements }`), `GET /supported`, `GET /health`, `GET /metrics`. An
 * invalid payment is HTTP 200 with `isValid: false` / `success: false`; malformed input is a 4xx
 * `{ error, message, issues? }`; only unexpected failures are a logged 500. Mount it under a
 * prefix with `root.route('/facilitator', app)`.
 */
export function createFacilitatorApp(facilitator: Facilitator, options: FacilitatorAppOptions = {}): Hono {
  const logger = options.logger ?? silentLogger
  const limitBytes = options.bodyLimitBytes ?? 64 * 1024
  const auth = createBearerAuth(options.authToken)
  const tokenCaller = getCallerId(options.authToken, undefined)
  const callerOf = (c: Context) => {
    const caller = tokenCaller ?? getCallerId(undefined, getRemoteAddress(c))
    return caller === undefined ? {} : { caller }
  }
  const app = new Hono()

  app.use('*', drainUnreadBody())
  // Liveness is public; the store counts and signer balances only with the token (when one is set).
  app.get('/health', async (c) =>
    c.json(auth.allows(c) ? await facilitator.getHealth() : { status: 'ok' as const }),
  )
  app.post('/verify', auth.middleware, async (c) =>
    c.json(
      await facilitator.verify(parseFacilitatorRequest(await readJson(c, limitBytes)), {
        ...PARSED,
        ...callerOf(c),
      }),
    ),
  )
  app.post('/settle', auth.middleware, async (c) =>
    c.json(
      await facilitator.settle(parseFacilitatorRequest(await readJson(c, limitBytes)), {
        ...PARSED,
        ...callerOf(c),
      }),
    ),
  )
  app.get('/supported', auth.middleware, async (c) => c.json(await facilitator.getSupported()))
  app.get('/metrics', auth.middleware, async (c) => {
    const { registry } = facilitator.metrics
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType })
  })

  app.notFound((c) => c.json({ error: 'not_found', message: `no route ${c.req.method} ${c.req.path}` }, 404))
  app.onError((error, c) => {
    const { status } = getErrorStatus(error)
    if (status >= 500) {
      logger.error({ err: error, method: c.req.method, path: c.req.path }, 'facilitator request failed')
    }
    return c.json(toErrorBody(error), status)
  })
  return app
}

// @hono/node-server puts the Node request under `c.env.incoming`; other runtimes have none.
function getRemoteAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined
  return env?.incoming?.socket?.remoteAddress
}

async function readJson(c: Context, limitBytes: number): Promise<unknown> {
  const text = await readBodyText(c, limitBytes)
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new AppError('invalid_json', { cause, message: 'the request body is not valid JSON' })
  }
}

// Compares digests so the check takes the same time whatever prefix of the token matches.
function createBearerAuth(token: string | undefined): {
  allows(c: Context): boolean
  middleware: MiddlewareHandler
} {
  const expected = token === undefined ? undefined : digest(token)
  const allows = (c: Context) => {
    if (!expected) {
      return true
    }
    const match = /^Bearer\s+(.+)$/i.exec(c.req.header('Authorization') ?? '')
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1].trim()), expected)
  }
  return {
    allows,
    middleware: async (c, next) => {
      if (!allows(c)) {
        c.header('WWW-Authenticate', 'Bearer')
        throw new AppError('unauthorized', { message: 'a valid bearer token is required' })
      }
      await next()
    },
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
