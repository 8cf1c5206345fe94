/**
 * Context of an error an HTTP surface answers about a request: the parameter at fault (`param`),
 * machine-readable `details` (per-field issues, limits), and `headers` to send with the answer
 * (`Retry-After`). Every surface maps codes to statuses in its own table; see docs/conventions.md.
 */
export type RequestErrorContext = { param?: string; details?: unknown; headers?: Record<string, string> }

/**
 * Context carried by each {@link AppError} code. Packages add their own codes by augmenting this
 * interface (`declare module '@tollgate/core' { interface AppErrorContexts { my_code: {…} } }`),
 * so `isAppError(e, 'my_code')` narrows `e.context` to the right shape.
 */
export interface AppErrorContexts {
  /** Input failed validation; `issues` are per-field messages keyed by dotted path. */
  invalid_request: { issues?: Record<string, string> }
  invalid_json: Record<string, never>
  invalid_amount: { value: string; decimals?: number }
  invalid_network: { network: string }
  unknown_asset: { network: string; asset: string }
  unsupported_scheme: { scheme: string; network?: string }
  invalid_header: { header: string }
  rpc_failed: { network?: string; method?: string }
  settlement_store_failed: { key?: string }
  relayer_unavailable: { network: string }
  facilitator_unreachable: { url?: string; status?: number }
  internal_error: Record<string, never>
  /** A missing, invalid or revoked credential (API key, bearer token). */
  unauthorized: RequestErrorContext
  /** A route or resource that does not exist for this caller. */
  not_found: RequestErrorContext & { path?: string }
  /** A request body over the surface's limit. */
  payload_too_large: RequestErrorContext & { limitBytes?: number }
}

/** Every code an {@link AppError} may carry. */
export type AppErrorCode = keyof AppErrorContexts & string

/** Options of the {@link AppError} constructor: the code's context, a cause and a human message. */
export type AppErrorOptions<TCode extends AppErrorCode> = {
  context?: AppErrorContexts[TCode]
  cause?: unknown
  message?: string
}

/**
 * The one error type Tollgate throws (x402 verify/settle outcomes are data, not errors).
 * `code` is stable snake_case for machines; `message` is a short sentence for people.
 */
export class AppError<TCode extends AppErrorCode = AppErrorCode> extends Error {
  override readonly name = 'AppError'
  readonly code: TCode
  readonly context: AppErrorContexts[TCode]

  constructor(code: TCode, options: AppErrorOptions<TCode> = {}) {
    super(options.message ?? code.replaceAll('_', ' '), { cause: options.cause })
    this.code = code
    this.context = options.context ?? ({} as AppErrorContexts[TCode])
  }
}

/** Whether `error` is an {@link AppError}, optionally with the given code (narrows `context`). */
export function isAppError<TCode extends AppErrorCode>(
  error: unknown,
  code?: TCode,
): error is AppError<TCode> {
  return error instanceof AppError && (code === undefined || error.code === code)
}
