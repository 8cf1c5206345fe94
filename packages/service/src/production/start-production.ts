import type { Logger } from 'pino'
import { type ComposedService, composeService } from '../compose/compose-service.js'
import { openDatabase } from '../db/open-database.js'
import type { Deps } from '../deps.js'
import { createLogger } from '../http/create-logger.js'
import { createRateLimiter } from '../http/rate-limit.js'
import type { JobRunner } from '../jobs/create-job-runner.js'
import { createGasFeeReaders, createLiveGasFeeReaders } from '../reference/get-gas-fees.js'
import { createReferenceData } from '../reference/reference-data.js'
import { listen } from '../sandbox/listen.js'
import { resealStoredSecrets } from '../secrets/reseal-stored-secrets.js'
import { createProductionFacilitatorClient } from './create-production-facilitator-client.js'
import type { ProductionConfig } from './production-config.js'
import { productionServiceConfig } from './production-service-config.js'

/** A running production server: its URL, the app, the deps and job runner, and `stop()`. */
export type ProductionServer = {
  url: string
  app: ComposedService['app']
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
    const reference = createReferenceData()
    const service = composeService({
      db: database.db,
      notifications: database.notifications,
      logger,
      ...productionServiceConfig(config),
      jobs: { run: config.inProcessJobs },
      app: {
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
        liveGasFeeReaders: createLiveGasFeeReaders(config.networks),
        rateLimiter: createRateLimiter({ limit: config.rateLimitPerMinute, windowMs: 60_000 }),
        sandboxRoutes: false,
        // Production: `/metrics` only with its token; without one it is not served.
        metricsToken: config.metricsToken ?? null,
      },
    })
    stops.push(() => service.stop({ timeoutMs: 5_000 }))
    const { app, deps, runner } = service
    progress('encrypting webhook secrets stored in clear or under a retired key')
    const resealed = await resealStoredSecrets(deps)
    logger.info(
      { resealed, keyId: config.secretKeyring.currentKeyId },
      'stored secrets under the current key',
    )
    if (config.inProcessJobs) {
      progress('starting the job runner')
    }
    progress(`starting the chain watchers (${Object.keys(config.networks).join(', ') || 'no network'})`)
    await service.start()
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
