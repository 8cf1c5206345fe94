import { type AppErrorCode, isAppError } from '@tollgate/core'

declare module '@tollgate/core' {
  interface AppErrorContexts {
    /** A facilitator request whose payload has an x402Version other than 1 or 2. */
    invalid_x402_version: { version: unknown }
    /** A PGlite data directory another process (or this one) already holds; see `lockDataDirectory`. */
    data_directory_locked: { dataDir: string; pid: number }
    /** A configuration file or environment that does not describe a runnable facilitator. */
    invalid_config: { issues: Record<string, string> }
  }
}

// One table from error code to HTTP status (docs/conventions.md, 'Envelope and errors'). Codes not listed
// are unexpected and become a logged 500.
const STATUS: Partial<Record<AppErrorCode, 400 | 401 | 404 | 413 | 502 | 503>> = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_x402_version: 400,
  unauthorized: 401,
  not_found: 404,
  payload_too_large: 413,
  rpc_failed: 502,
  relayer_unavailable: 503,
  settlement_store_failed: 503,
}

/** The HTTP status for an error the facilitator app answers, and whether it is unexpected (500). */
export function getErrorStatus(error: unknown): { status: 400 | 401 | 404 | 413 | 500 | 502 | 503 } {
  const status = isAppError(error) ? STATUS[error.code] : undefined
  return { status: status ?? 500 }
}

/** The JSON error body of the facilitator app: `{ error: code, message, issues? }` (x402 style). */
export function toErrorBody(error: unknown): Record<string, unknown> {
  if (isAppError(error) && STATUS[error.code] !== undefined) {
    const issues = isAppError(error, 'invalid_request') ? error.context.issues : undefined
    return { error: error.code, message: error.message, ...(issues ? { issues } : {}) }
  }
  return { error: 'internal_error', message: 'internal error' }
}
