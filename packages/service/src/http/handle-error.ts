import { AppError, isAppError } from '@tollgate/core'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { serviceErrorTable } from '../errors.js'
import type { AppEnv } from './app-env.js'

/** What the error envelope says about one failure, and whether it is logged as an error (every 5xx). */
export type HttpError = {
  status: ContentfulStatusCode
  code: string
  message: string
  param?: string
  details?: unknown
  /** The envelope's `data` on this error (null unless the code's context carries one). */
  data?: unknown
  headers: Record<string, string>
  unexpected: boolean
}

const statusToCode: Record<number, 'validation_error' | 'unauthorized' | 'forbidden' | 'not_found'> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
}

const internal: HttpError = {
  status: 500,
  code: 'internal_error',
  message: 'Internal server error',
  headers: {},
  unexpected: true,
}

/** Maps any thrown value through {@link serviceErrorTable}; unknown errors become a 500 `internal_error`. */
export function toHttpError(error: unknown): HttpError {
  const coded =
    error instanceof HTTPException && statusToCode[error.status]
      ? new AppError(statusToCode[error.status] as 'validation_error', {
          message: error.message,
          cause: error,
        })
      : error
  if (!isAppError(coded)) {
    return internal
  }
  const mapping = serviceErrorTable[coded.code]
  if (!mapping) {
    return internal
  }
  const context = coded.context as {
    param?: string
    details?: unknown
    data?: unknown
    headers?: Record<string, string>
  }
  // Core's invalid_request carries per-field `issues`; the wire shows them as `details`.
  const issues = isAppError(coded, 'invalid_request') ? coded.context.issues : undefined
  const details = context.details ?? issues
  return {
    status: mapping.status,
    code: mapping.wire,
    message: coded.message,
    ...(context.param === undefined ? {} : { param: context.param }),
    ...(details === undefined ? {} : { details }),
    ...(context.data === undefined ? {} : { data: context.data }),
    headers: context.headers ?? {},
    unexpected: mapping.status >= 500,
  }
}

/** The one `app.onError`: writes the error envelope with the status of `serviceErrorTable`. */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  const mapped = toHttpError(error)
  if (mapped.unexpected) {
    c.get('logger')?.error({ err: error, code: isAppError(error) ? error.code : undefined }, 'request failed')
  }
  for (const [name, value] of Object.entries(mapped.headers)) {
    c.header(name, value)
  }
  const body: { code: string; param?: string; details?: unknown } = { code: mapped.code }
  if (mapped.param !== undefined) {
    body.param = mapped.param
  }
  if (mapped.details !== undefined) {
    body.details = mapped.details
  }
  return c.json(
    { success: false, message: mapped.message, data: mapped.data ?? null, error: body },
    mapped.status,
  )
}

/** The `app.notFound` handler: an unknown route is a 404 `not_found` envelope. */
export function handleNotFound(c: Context<AppEnv>): Response {
  return handleError(new AppError('not_found', { message: `No route for ${c.req.method} ${c.req.path}` }), c)
}
