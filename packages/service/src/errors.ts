import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Stable snake_case error codes of the service API (CONVENTIONS.md "Envelope and errors"). */
export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'validation_error'
  | 'invalid_json'
  | 'insufficient_balance'
  | 'pending_transfer_already_resolved'
  | 'pending_transfer_expired'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'provider_unavailable'
  | 'internal_error'

/** HTTP status of every error code: the one place codes become statuses (STYLE.md error model). */
export const codeToStatus = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  validation_error: 400,
  invalid_json: 400,
  insufficient_balance: 400,
  pending_transfer_already_resolved: 409,
  pending_transfer_expired: 409,
  idempotency_key_reused: 422,
  idempotency_key_in_use: 409,
  rate_limited: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  provider_unavailable: 503,
  internal_error: 500,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>

/** One field-level problem in a `validation_error` (`field` is a dotted path such as `query.size`). */
export type FieldIssue = { field: string; message: string; code: string }

/** Options of {@link ServiceError}: the offending parameter, machine-readable details, the cause. */
export type ServiceErrorOptions = {
  param?: string
  details?: unknown
  cause?: unknown
  headers?: Record<string, string>
}

/**
 * A coded error the service maps to the error envelope; shaped like core's `AppError` (literal
 * `code`, short `message`, `cause`) so switching to it only changes this file.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode
  readonly param: string | undefined
  readonly details: unknown
  readonly headers: Record<string, string>

  constructor(code: ErrorCode, message: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ServiceError'
    this.code = code
    this.param = options.param
    this.details = options.details
    this.headers = options.headers ?? {}
  }
}

/** Narrows `error` to a {@link ServiceError}, optionally of one code. */
export function isServiceError<C extends ErrorCode>(
  error: unknown,
  code?: C,
): error is ServiceError & { code: C } {
  return error instanceof ServiceError && (code === undefined || error.code === code)
}
