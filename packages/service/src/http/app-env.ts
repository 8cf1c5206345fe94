import type { Logger } from 'pino'

/** Environment of an API key: `test` (sandbox, `sk_test_`) or `live` (`sk_live_`). */
export type KeyEnvironment = 'test' | 'live'

/** Response and event format of an API key (spec "Versioning" 2). */
export type ResponseFormat = 'current' | 'legacy'

/** The authenticated caller: set by the API-key middleware on every `/api/v1` route. */
export type ApiKeyAuth = {
  keyId: string
  merchantId: string
  environment: KeyEnvironment
  format: ResponseFormat
}

/** Hono environment of the service app: per-request variables set by the middleware chain. */
export type AppEnv = {
  Variables: {
    requestId: string
    logger: Logger
    auth: ApiKeyAuth
  }
}
