import { OpenAPIHono } from '@hono/zod-openapi'
import type { FacilitatorClient } from '@tollgate/core'
import { drainUnreadBody } from '@tollgate/facilitator'
import { requireApiKey } from './auth/require-api-key.js'
import { throttleApiKey } from './auth/throttle-api-key.js'
import { createBalanceRoutes } from './balances/routes.js'
import {
  type CheckoutRoutesOptions,
  createCheckoutRoutes,
  defaultCheckoutRateLimit,
} from './checkout/routes.js'
import { createCustomerRoutes } from './customers/routes.js'
import { createDepositAccountRoutes } from './deposits/account-routes.js'
import { createDepositRoutes } from './deposits/routes.js'
import type { Deps } from './deps.js'
import { createEventRoutes } from './events/routes.js'
import type { AppEnv } from './http/app-env.js'
import { createOutboundHttp, type OutboundHttp } from './http/create-outbound-http.js'
import { createDocsRoutes } from './http/docs-routes.js'
import { handleError, handleNotFound } from './http/handle-error.js'
import { createIdempotencyMiddleware, type IdempotencyOptions } from './http/idempotency.js'
import { createJsonBodyParser } from './http/json-body.js'
import { createHttpMetrics, createMetricsMiddleware, type HttpMetrics } from './http/metrics.js'
import { createRateLimiter, type RateLimiter } from './http/rate-limit.js'
import { createRequestContext } from './http/request-context.js'
import { requireBearerToken } from './http/require-bearer-token.js'
import { createUrlTextGuard } from './http/url-text-guard.js'
import { validationHook } from './http/validation-hook.js'
import { createJobMetrics } from './jobs/job-metrics.js'
import { createHostedPaymentPageRoutes } from './payment-pages/hosted-routes.js'
import { createPaymentPageRoutes, createPublicPaymentPageRoutes } from './payment-pages/routes.js'
import { createAgentPaymentRoutes } from './payments/agent-routes.js'
import { createPaymentRoutes } from './payments/routes.js'
import { createSettlementRoutes } from './payments/settlement-routes.js'
import { createPayoutRoutes } from './payouts/routes.js'
import { createRecipientRoutes } from './recipients/routes.js'
import type { GasFeeReaders } from './reference/get-gas-fees.js'
import { createReferenceData, type ReferenceData } from './reference/reference-data.js'
import { createReferenceRoutes } from './reference/routes.js'
import { createSandboxRoutes } from './sandbox/routes.js'
import { createSwapRoutes } from './swaps/routes.js'
import { createWebhookRoutes } from './webhooks/routes.js'
import { createWebhookMetrics, type WebhookMetrics } from './webhooks/webhook-metrics.js'
import { createX402Routes } from './x402/routes.js'

/** Default per-key rate limit: 600 requests per 60-second fixed window. */
export const defaultRateLimit = { limit: 600, windowMs: 60_000 }
/** Default request body limit in bytes (100 KiB). */
export const defaultBodyLimitBytes = 100 * 1024

/** Options of {@link createApp}; every field has a default suited to the sandbox. */
export type AppOptions = {
  reference?: ReferenceData
  gasFeeReaders?: GasFeeReaders
  /** Fee readers of the configured live networks (GET /blockchain/gas-fees for live keys); default none. */
  liveGasFeeReaders?: GasFeeReaders
  rateLimiter?: RateLimiter
  bodyLimitBytes?: number
  idempotency?: IdempotencyOptions
  /** Mount the sandbox-only routes (`POST /sandbox/fund`); they answer 404 to live keys regardless. */
  sandboxRoutes?: boolean
  metrics?: HttpMetrics
  /**
   * `/metrics`' bearer token: a string requires `Authorization: Bearer <token>` (401 otherwise),
   * `null` serves no `/metrics` (404), undefined leaves it open (the sandbox, on loopback).
   */
  metricsToken?: string | null
  /** The in-process x402 facilitator behind /x402/verify and /x402/settle (the sandbox's devnet one). */
  facilitator?: FacilitatorClient
  /** The public hosted checkout's per-IP limit, event-stream poll interval and stream cap. */
  checkout?: CheckoutRoutesOptions
  /** Outbound client of webhook test sends (default a new guarded client, docs/webhooks.md). */
  webhookHttp?: OutboundHttp
  /** Webhook metrics in `metrics`' registry, when the composition root already registered them. */
  webhookMetrics?: WebhookMetrics
}

/**
 * Creates the merchant service hono app: `/api/v1`, `/api/v1/openapi.json`, `/docs`, `/metrics`, `/health`
 * and the hosted checkout under `/checkout`.
 */
export function createApp(deps: Deps, options: AppOptions = {}) {
  const metrics = options.metrics ?? createHttpMetrics()
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  app.onError(handleError)
  app.notFound(handleNotFound)
  app.use('*', drainUnreadBody())
  app.use('*', createRequestContext({ logger: deps.logger, createId: () => deps.ids.create('req') }))
  app.use('*', createMetricsMiddleware(metrics))
  createJobMetrics(metrics.registry, deps)
  const webhookMetrics = options.webhookMetrics ?? createWebhookMetrics(metrics.registry)

  app.get('/health', (c) => c.json({ status: 'ok' }))
  if (options.metricsToken !== null) {
    app.get('/metrics', requireBearerToken(options.metricsToken), async (c) =>
      c.text(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType }),
    )
  }
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: '`sk_test_…` (sandbox) or `sk_live_…` key',
  })
  // Registered before the /api/v1 middleware so the document itself needs no key.
  app.doc31('/api/v1/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Tollgate merchant service', version: '1.0.0' },
    // Paths carry the /api/v1 prefix, so the server is the host root: a generated client joins them once.
    servers: [{ url: '/' }],
  })
  app.route('/', createDocsRoutes())
  // Public hosted pages (docs/checkout.md): no API key, their own per-IP limit, outside /api/v1.
  // One per-IP budget for every public surface: checkout, payment pages and their public view.
  const checkout = {
    ...options.checkout,
    rateLimiter: options.checkout?.rateLimiter ?? createRateLimiter(defaultCheckoutRateLimit),
  }
  app.route('/', createCheckoutRoutes(deps, checkout))
  app.route('/', createHostedPaymentPageRoutes(deps, checkout))
  // Keyless, so mounted before the API's key middleware: its handler answers first.
  app.route('/api/v1', createPublicPaymentPageRoutes(deps, checkout.rateLimiter))
  app.route('/api/v1', createApiRoutes(deps, { ...options, webhookMetrics }))
  return app
}

function createApiRoutes(deps: Deps, options: AppOptions) {
  const reference = options.reference ?? createReferenceData()
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  // Cheapest first (docs/security.md "Authentication before work"): the key's shape and its throttle,
  // then the key's hash and lookup, and only then the body is read and parsed.
  api.use('*', throttleApiKey(options.rateLimiter ?? createRateLimiter(defaultRateLimit)))
  api.use('*', requireApiKey(deps))
  api.use('*', createJsonBodyParser({ limitBytes: options.bodyLimitBytes ?? defaultBodyLimitBytes }))
  api.use('*', createUrlTextGuard())
  api.use('*', createIdempotencyMiddleware(deps, options.idempotency))
  api.route(
    '/',
    createReferenceRoutes(deps, {
      reference,
      gasFeeReaders: options.gasFeeReaders ?? {},
      ...(options.liveGasFeeReaders ? { liveGasFeeReaders: options.liveGasFeeReaders } : {}),
    }),
  )
  api.route('/', createBalanceRoutes(deps))
  api.route('/', createX402Routes(deps, options.facilitator))
  api.route('/', createRecipientRoutes(deps))
  api.route('/', createPayoutRoutes(deps))
  api.route('/', createAgentPaymentRoutes(deps, options.facilitator))
  api.route('/', createPaymentRoutes(deps))
  api.route('/', createSettlementRoutes(deps))
  api.route('/', createPaymentPageRoutes(deps))
  api.route('/', createSwapRoutes(deps))
  api.route('/', createCustomerRoutes(deps))
  api.route('/', createDepositAccountRoutes(deps))
  api.route('/', createDepositRoutes(deps))
  const webhookDeps = {
    ...deps,
    http: options.webhookHttp ?? createOutboundHttp(),
    metrics: options.webhookMetrics,
  }
  api.route('/', createWebhookRoutes(webhookDeps))
  api.route('/', createEventRoutes(webhookDeps))
  if (options.sandboxRoutes ?? true) {
    api.route('/', createSandboxRoutes(deps))
  }
  return api
}
