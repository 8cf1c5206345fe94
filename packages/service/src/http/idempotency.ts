import { createHash } from 'node:crypto'
import { AppError, isAppError } from '@tollgate/core'
import type { MiddlewareHandler } from 'hono'
import type { Deps } from '../deps.js'
import type { AppEnv } from './app-env.js'
import { withholdSecrets } from './withhold-secrets.js'

/** Options of {@link createIdempotencyMiddleware}: key lifetime and how long an unfinished claim blocks (ms). */
export type IdempotencyOptions = { ttlMs?: number; lockTimeoutMs?: number }

const keyPattern = /^[\x21-\x7e]{1,255}$/
// Failures before the endpoint did any work: the claim is released so a corrected retry may reuse the key.
const releasedCodes = new Set([
  'validation_error',
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
])

/**
 * `Idempotency-Key` on POST/PATCH (docs/conventions.md, docs/service.md): claims the key per merchant and environment, stores
 * the response; same key and body replays it (`Idempotent-Replayed: true`), another body is 422
 * `idempotency_key_reused`, an unfinished claim is 409 `idempotency_key_in_use`. Runs after auth.
 */
export function createIdempotencyMiddleware(
  deps: Pick<Deps, 'db' | 'clock'>,
  options: IdempotencyOptions = {},
): MiddlewareHandler<AppEnv> {
  const ttlMs = options.ttlMs ?? 24 * 3600_000
  const lockTimeoutMs = options.lockTimeoutMs ?? 5 * 60_000
  return async (c, next) => {
    const key = c.req.header('idempotency-key')
    if (key === undefined || (c.req.method !== 'POST' && c.req.method !== 'PATCH')) {
      return next()
    }
    if (!keyPattern.test(key)) {
      throw new AppError('validation_error', {
        message: 'Idempotency-Key must be 1-255 printable ASCII characters',
        context: { param: 'Idempotency-Key' },
      })
    }
    const { merchantId, environment } = c.get('auth')
    const url = new URL(c.req.url)
    const requestHash = createHash('sha256')
      .update(`${c.req.method} ${url.pathname}${url.search}\n${await c.req.text()}`)
      .digest('hex')
    const where = { merchantId, environment, key }
    const claimed = await claimKey(deps, where, {
      method: c.req.method,
      path: url.pathname,
      requestHash,
      ttlMs,
      lockTimeoutMs,
    })
    if (!claimed) {
      return replayClaim(deps, where, requestHash)
    }
    try {
      await next()
    } catch (error) {
      await releaseClaim(deps, where)
      throw error
    }
    const failedEarly = isAppError(c.error) && releasedCodes.has(c.error.code)
    if (c.res.status >= 500 || failedEarly) {
      await releaseClaim(deps, where)
      return
    }
    // A secret shown once (a webhook secret) is never kept: the replay answers without it.
    const body = withholdSecrets(await c.res.clone().text())
    await deps.db
      .updateTable('idempotency_keys')
      .set({ state: 'completed', response_status: c.res.status, response_body: body })
      .where('merchant_id', '=', merchantId)
      .where('environment', '=', environment)
      .where('key', '=', key)
      .execute()
  }
}

type ClaimKey = { merchantId: string; environment: 'test' | 'live'; key: string }
type ClaimRequest = {
  method: string
  path: string
  requestHash: string
  ttlMs: number
  lockTimeoutMs: number
}

// Drops an expired key or an abandoned claim, then claims; false when another row holds the key.
async function claimKey(
  deps: Pick<Deps, 'db' | 'clock'>,
  where: ClaimKey,
  request: ClaimRequest,
): Promise<boolean> {
  const now = deps.clock.now()
  await deps.db
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', where.merchantId)
    .where('environment', '=', where.environment)
    .where('key', '=', where.key)
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb.and([
          eb('state', '=', 'in_progress'),
          eb('created_at', '<=', new Date(now.getTime() - request.lockTimeoutMs)),
        ]),
      ]),
    )
    .execute()
  const claimed = await deps.db
    .insertInto('idempotency_keys')
    .values({
      merchant_id: where.merchantId,
      environment: where.environment,
      key: where.key,
      method: request.method,
      path: request.path,
      request_hash: request.requestHash,
      state: 'in_progress',
      response_status: null,
      response_body: null,
      created_at: now,
      expires_at: new Date(now.getTime() + request.ttlMs),
    })
    .onConflict((oc) => oc.doNothing())
    .returning('key')
    .executeTakeFirst()
  return claimed !== undefined
}

async function replayClaim(deps: Pick<Deps, 'db'>, where: ClaimKey, requestHash: string): Promise<Response> {
  const row = await deps.db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'state', 'response_status', 'response_body'])
    .where('merchant_id', '=', where.merchantId)
    .where('environment', '=', where.environment)
    .where('key', '=', where.key)
    .executeTakeFirst()
  if (row && row.request_hash !== requestHash) {
    throw new AppError('idempotency_key_reused', {
      message: 'This Idempotency-Key was already used with a different request; use a new key',
      context: { param: 'Idempotency-Key' },
    })
  }
  if (row?.state !== 'completed' || row.response_status === null) {
    throw new AppError('idempotency_key_in_use', {
      message: 'A request with this Idempotency-Key is still in progress',
      context: { param: 'Idempotency-Key' },
    })
  }
  return new Response(row.response_body, {
    status: row.response_status,
    headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' },
  })
}

async function releaseClaim(deps: Pick<Deps, 'db'>, where: ClaimKey): Promise<void> {
  await deps.db
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', where.merchantId)
    .where('environment', '=', where.environment)
    .where('key', '=', where.key)
    .where('state', '=', 'in_progress')
    .execute()
}
