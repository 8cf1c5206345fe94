import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AppError } from '@tollgate/core'
import { createFacilitator, type Facilitator } from './create-facilitator.js'
import { createFacilitatorListener } from './create-facilitator-listener.js'
import { createSchemesFromConfig } from './create-schemes-from-config.js'
import { describeOpenExposure, type FacilitatorConfig } from './facilitator-config.js'
import { type Logger, silentLogger } from './logger.js'
import { openSettlementDatabase } from './open-settlement-database.js'
import { createPostgresSettlementStore } from './postgres-settlement-store.js'
import { startReconcileLoop } from './start-reconcile-loop.js'

/** A running standalone facilitator. */
export type FacilitatorServer = {
  /** Base URL, e.g. `http://127.0.0.1:4021`. */
  url: string
  facilitator: Facilitator
  /** Stops accepting requests, the reconcile loop and relayer timers, then closes the database. */
  stop(): Promise<void>
}

/**
 * Starts the facilitator a configuration describes: opens the database (PostgreSQL or PGlite) and
 * migrates the settlement store, builds the schemes, serves the HTTP API and reconciles pending
 * settlements at start and every `reconcileIntervalMs`.
 */
export async function startFacilitatorServer(
  config: FacilitatorConfig,
  options: { logger?: Logger } = {},
): Promise<FacilitatorServer> {
  const logger = options.logger ?? silentLogger
  const exposure = describeOpenExposure(config.host, config.authToken !== undefined)
  if (exposure) {
    throw new AppError('invalid_config', {
      context: { issues: { authTokenEnv: exposure } },
      message: `invalid facilitator configuration:\n  authTokenEnv: ${exposure}`,
    })
  }
  const db = await openSettlementDatabase({
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir }),
    onPoolError: (error) => logger.warn({ err: error }, 'idle database connection failed'),
  })
  const configured = await createSchemesFromConfig(config)
  try {
    const store = await createPostgresSettlementStore({ db, schema: config.databaseSchema })
    const facilitator = createFacilitator({
      schemes: configured.schemes,
      store,
      logger,
      getBalances: configured.getBalances,
      limits: config.limits,
      ...(config.leaseMs ? { leaseMs: config.leaseMs } : {}),
      ...(config.settleWaitTimeoutMs ? { settleWaitTimeoutMs: config.settleWaitTimeoutMs } : {}),
    })
    const listener = createFacilitatorListener(facilitator, {
      logger,
      ...(config.authToken ? { authToken: config.authToken } : {}),
      ...(config.bodyLimitBytes ? { bodyLimitBytes: config.bodyLimitBytes } : {}),
    })
    const server = await new Promise<Server>((resolve, reject) => {
      const started = createServer(listener)
      started.once('error', reject)
      started.listen(config.port, config.host, () => resolve(started))
    })
    const { port } = server.address() as AddressInfo
    const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host
    const loop = startReconcileLoop(facilitator, { intervalMs: config.reconcileIntervalMs, logger })
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
      facilitator,
      async stop() {
        await new Promise<void>((resolve) => server.close(() => resolve()))
        await loop.stop()
        facilitator.close()
        configured.close()
        await db.destroy()
      },
    }
  } catch (error) {
    configured.close()
    await db.destroy()
    throw error
  }
}
