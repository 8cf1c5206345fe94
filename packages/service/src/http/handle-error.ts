import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { codeToStatus, type ErrorCode, isServiceError, ServiceError } from '../errors.js'
import type { AppEnv } from './app-env.js'

const statusToCode: Record<number, ErrorCode> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
}

/** Maps any thrown value to a {@link ServiceError}; unknown errors become `internal_error`. */
export function toServiceError(error: unknown): ServiceError {
  if (isServiceError(error)) {
    return error
  }
  if (error instanceof HTTPException && statusToCode[error.status]) {
    const code = statusToCode[error.status] as ErrorCode
    return new ServiceError(code, error.message || code, { cause: error })
  }
  return new ServiceError('internal_error', 'Internal server error', { cause: error })
}

/** The one `app.onError`: writes the error envelope with the status of `codeToStatus`. */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  const mapped = toServiceError(error)
  const status = codeToStatus[mapped.code]
  const logger = c.get('logger')
  if (status >= 500) {
    logger?.error({ err: error, code: mapped.code }, 'request failed')
  }
  for (const [name, value] of Object.entries(mapped.headers)) {
    c.header(name, value)
  }
  const error_: { code: string; param?: string; details?: unknown } = { code: mapped.code }
  if (mapped.param !== undefined) {
    error_.param = mapped.param
  }
  if (mapped.details !== undefined) {
    error_.details = mapped.details
  }
  return c.json({ success: false, message: mapped.message, data: null, error: error_ }, status)
}

/** The `app.notFound` handler: an unknown route is a 404 `not_found` envelope. */
export function handleNotFound(c: Context<AppEnv>): Response {
  return handleError(new ServiceError('not_found', `No route for ${c.req.method} ${c.req.path}`), c)
}
