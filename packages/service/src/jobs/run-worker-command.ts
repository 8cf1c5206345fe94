import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { AppError, isAppError } from '@tollgate/core'
import { readJsonConfigFile } from '@tollgate/facilitator'
import type { Logger } from 'pino'
import type { ComposeServiceConfig } from '../compose/compose-service.js'
import { type OpenedDatabase, openDatabase } from '../db/open-database.js'
import { createLogger } from '../http/create-logger.js'
import { parseProductionConfig } from '../production/production-config.js'
import { productionServiceConfig } from '../production/production-service-config.js'
import type { RailsNetwork } from '../rails/chains/create-chain-registry.js'
import type { CliIo } from '../run-cli.js'
import { readOrCreateMasterSeed } from '../sandbox/read-or-create-master-seed.js'
import type { SandboxManifest } from '../sandbox/sandbox-manifest.js'
import { runWorker } from './run-worker.js'

/**
 * Which composition `tollgate worker` runs: the production one from the configuration file of
 * `tollgate serve` (and its environment), or the sandbox's beside `npm start`.
 */
export type WorkerCommandInput =
  | { configPath: string; env: Readonly<Record<string, string | undefined>>; sandbox?: false }
  | { sandbox: true; configPath?: undefined }

/**
 * Runs the service's background jobs until `io.signal` aborts (`tollgate worker`): with `configPath`
 * on the rails, settings and database of `tollgate serve --config` (same file, same environment),
 * with `sandbox` on the sandbox's (its manifest's chains, its master seed, `io.openDatabase`).
 * Refuses to start with neither. Returns the exit code.
 */
export async function runWorkerCommand(input: WorkerCommandInput, io: CliIo): Promise<number> {
  try {
    if (!input.sandbox && !input.configPath) {
      throw new AppError('invalid_config', {
        context: { issues: { config: 'required' } },
        message:
          'worker: --config <file> is required (the configuration file of `tollgate serve`), or --sandbox beside `npm start`',
      })
    }
    const opened = input.sandbox ? await openSandboxWorker(io) : await openProductionWorker(input)
    try {
      await runWorker({ service: opened.service, stopped: whenAborted(io.signal) })
    } finally {
      await opened.database.close()
    }
    return 0
  } catch (error) {
    io.err(isAppError(error) ? `${error.code}: ${error.message}` : String(error))
    return 1
  }
}

type OpenedWorker = { database: OpenedDatabase; service: Parameters<typeof runWorker>[0]['service'] }

async function openProductionWorker(input: {
  configPath: string
  env: Readonly<Record<string, string | undefined>>
}): Promise<OpenedWorker> {
  const config = parseProductionConfig(await readJsonConfigFile(input.configPath), input.env)
  const logger = createLogger({ level: config.logLevel })
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    schema: config.database.schema,
    poolSize: config.database.poolSize,
    preparedStatements: config.database.preparedStatements,
  })
  return { database, service: withDatabase(database, logger, productionServiceConfig(config)) }
}

async function openSandboxWorker(io: CliIo): Promise<OpenedWorker> {
  const manifestPath = io.manifestPath ?? '.tollgate/sandbox.json'
  const manifest = await readFile(manifestPath, 'utf8').then(
    (text) => JSON.parse(text) as Partial<SandboxManifest>,
    () => undefined,
  )
  if (!manifest) {
    io.err(`worker: no sandbox manifest at ${manifestPath}: no chain has a node (start the sandbox first)`)
  }
  if (!io.secretKeyring) {
    throw new AppError('invalid_config', {
      context: { issues: { secretKeyring: 'required' } },
      message: 'worker: no keyring for stored secrets (TOLLGATE_SECRET_KEYS or the sandbox master seed)',
    })
  }
  const secretKeyring = await io.secretKeyring()
  const masterSeed = io.dataDir
    ? await readOrCreateMasterSeed(join(dirname(io.dataDir), 'master-seed'))
    : undefined
  const database = await io.openDatabase()
  if (database.engine === 'pglite') {
    io.err('worker: on PGlite the sandbox must not be running (one process per data directory)')
  }
  const networks = Object.fromEntries(
    Object.entries(manifest?.networks ?? {}).map(([id, network]): [string, RailsNetwork] => [
      id,
      {
        rpcUrl: network.rpcUrl,
        assets: Object.fromEntries(
          Object.entries(network.assets).map(([symbol, asset]) => [symbol, { symbol, ...asset }]),
        ),
      },
    ]),
  )
  return {
    database,
    service: withDatabase(database, createLogger(), {
      rails: { kind: 'sandbox', ...(masterSeed ? { masterSeed } : {}), networks, pollIntervalMs: 250 },
      settings: {
        secretKeyring,
        ...(manifest?.apiUrl ? { publicBaseUrl: manifest.apiUrl.replace(/\/api\/v1$/, '') } : {}),
      },
    }),
  }
}

function withDatabase(
  database: OpenedDatabase,
  logger: Logger,
  chosen: Pick<ComposeServiceConfig, 'rails' | 'settings'>,
): OpenedWorker['service'] {
  return { db: database.db, notifications: database.notifications, logger, ...chosen }
}

function whenAborted(signal: AbortSignal = new AbortController().signal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve()
    }
    signal.addEventListener('abort', () => resolve())
  })
}
