import type { Logger } from 'pino'
import { createApp } from '../app.js'
import { openDatabase } from '../db/open-database.js'
import { subscribeDeposits } from '../deposits/subscribe-deposits.js'
import { createIdGenerator, type Deps, systemClock } from '../deps.js'
import { createLogger } from '../http/create-logger.js'
import { createOutboundHttp } from '../http/create-outbound-http.js'
import { createHttpMetrics } from '../http/metrics.js'
import { createRateLimiter } from '../http/rate-limit.js'
import { createJobRunner, type JobRunner } from '../jobs/create-job-runner.js'
import { registerServiceJobs } from '../jobs/register-service-jobs.js'
import { registerSessionHandlers } from '../payments/register-session-handlers.js'
import { createGasFeeReaders } from '../reference/get-gas-fees.js'
import { createReferenceData } from '../reference/reference-data.js'
import { listen } from '../sandbox/listen.js'
import { resealStoredSecrets } from '../secrets/reseal-stored-secrets.js'
import { createDefaultSettings, liveWebhookRetryDelaysMs, sandboxWebhookRetryDelaysMs } from '../settings.js'
import { createWebhookMetrics } from '../webhooks/webhook-metrics.js'
import { registerX402Handlers } from '../x402/credit-confirmed-x402.js'
import { createProductionFacilitatorClient } from './create-production-facilitator-client.js'
import { createProductionRails } from './create-production-rails.js'
import type { ProductionConfig } from './production-config.js'

/** A running production server: its URL, the app, the deps and job runner, and `stop()`. */
export type ProductionServer = {
  url: string
  app: ReturnType<typeof createApp>
  deps: Deps
  runner: JobRunner
  stop(): Promise<void>
}

/**
 * The composition root of `tollgate serve` (docs/production.md): PostgreSQL, the chain rails on the
 * configured live RPC URLs, the service API with no sandbox routes, the job runner (unless
 * `inProcessJobs` is false), and the HTTP server. No devnet, no sandbox merchant, no fiat provider.
 * `progress` hears each step.
 */
export async function startProduction(
  config: ProductionConfig,
  options: { logger?: Logger; progress?: (step: string) => void } = {},
): Promise<ProductionServer> {
  const logger = options.logger ?? createLogger({ level: config.logLevel })
  const progress = options.progress ?? (() => {})
  const stops: (() => Promise<void>)[] = []
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) {
      await fn().catch((error: unknown) => logger.warn({ err: error }, 'production stop step failed'))
    }
  }
  try {
    progress('opening the database and applying migrations')
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      schema: config.database.schema,
      poolSize: config.database.poolSize,
      preparedStatements: config.database.preparedStatements,
    })
    stops.push(database.close)
    const base = { db: database.db, clock: systemClock, ids: createIdGenerator(), logger }
    const rails = createProductionRails(base, {
      masterSeed: config.masterSeed,
      networks: config.networks,
      fx: config.fx,
      ...(config.operatingKeys ? { operatingKeys: { live: config.operatingKeys } } : {}),
    })
    const deps: Deps = {
      ...base,
      rails,
      settings: createDefaultSettings({
        publicBaseUrl: config.publicBaseUrl.replace(/\/+$/, ''),
        allowLoopbackWebhooks: false,
        trustedProxies: config.trustedProxies,
        allowTestKeys: false,
        secretKeyring: config.secretKeyring,
        webhookRetryDelaysMs: {
          live: config.webhooks.retryDelaysMs ?? liveWebhookRetryDelaysMs,
          test: sandboxWebhookRetryDelaysMs,
        },
      }),
    }
    progress('encrypting webhook secrets stored in clear or under a retired key')
    const resealed = await resealStoredSecrets(deps)
    logger.info(
      { resealed, keyId: config.secretKeyring.currentKeyId },
      'stored secrets under the current key',
    )
    const unsubscribeDeposits = subscribeDeposits(deps)
    stops.push(async () => unsubscribeDeposits())
    const metrics = createHttpMetrics()
    const webhookMetrics = createWebhookMetrics(metrics.registry)
    const webhookHttp = createOutboundHttp()
    stops.push(() => webhookHttp.close())
    const runner = createJobRunner({ ...deps, notifications: database.notifications })
    registerServiceJobs(runner, { ...deps, http: webhookHttp, metrics: webhookMetrics })
    if (config.inProcessJobs) {
      progress('starting the job runner')
      await runner.start()
      stops.push(() => runner.stop({ timeoutMs: 5_000 }))
    }
    const unsubscribeSessions = registerSessionHandlers(deps)
    stops.push(async () => unsubscribeSessions())
    // x402 payments recorded pending (below the chain's confirmation count) are credited when confirmed.
    const unsubscribeX402 = registerX402Handlers(deps)
    stops.push(async () => unsubscribeX402())
    progress(`starting the chain watchers (${Object.keys(config.networks).join(', ') || 'no network'})`)
    await rails.start()
    stops.push(rails.stop)
    const reference = createReferenceData()
    const app = createApp(deps, {
      ...(config.facilitatorUrl
        ? {
            facilitator: createProductionFacilitatorClient({
              url: config.facilitatorUrl,
              token: config.facilitatorToken,
            }),
          }
        : {}),
      reference,
      gasFeeReaders: createGasFeeReaders(reference),
      rateLimiter: createRateLimiter({ limit: config.rateLimitPerMinute, windowMs: 60_000 }),
      sandboxRoutes: false,
      metrics,
      webhookMetrics,
      webhookHttp,
    })
    progress(`listening on ${config.host}:${config.port}`)
    const server = await listen((request, env) => app.fetch(request, env), {
      port: config.port,
      host: config.host,
    })
    stops.push(server.close)
    return { url: server.url, app, deps, runner, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
