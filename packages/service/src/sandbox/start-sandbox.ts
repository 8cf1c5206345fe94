import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { serve } from '@hono/node-server'
import type { Devnet } from '@tollgate/devnet'
import type { Logger } from 'pino'
import { createApp } from '../app.js'
import { openDatabase } from '../db/open-database.js'
import { createIdGenerator, type Deps, systemClock } from '../deps.js'
import { ServiceError } from '../errors.js'
import { createLogger } from '../http/create-logger.js'
import { createRateLimiter } from '../http/rate-limit.js'
import { createGasFeeReaders } from '../reference/get-gas-fees.js'
import { createReferenceData } from '../reference/reference-data.js'
import { ensureSandboxMerchant } from './ensure-sandbox-merchant.js'
import { fundSandboxMerchant } from './fund-sandbox-merchant.js'
import { createSandboxManifest, type SandboxManifest } from './sandbox-manifest.js'

/** Options of {@link startSandbox}; the defaults are those of `npm start`. */
export type StartSandboxOptions = {
  /** TCP port; 0 picks a free one. Default 4020. */
  port?: number
  host?: string
  /** PGlite data directory (default `.tollgate/data`); ignored when `databaseUrl` is set. */
  dataDir?: string
  databaseUrl?: string | undefined
  /** Where the manifest goes; default `sandbox.json` beside the data directory. */
  manifestPath?: string
  logger?: Logger
  /** Starts the local chains; tests pass a fake. Default `startDevnet()` of `@tollgate/devnet`. */
  startDevnet?: () => Promise<Devnet>
  rateLimitPerMinute?: number
}

/** A running sandbox: its manifest (URLs, key, chains, wallets) and `stop()` for everything it started. */
export type Sandbox = {
  manifest: SandboxManifest
  manifestPath: string
  merchantId: string
  stop(): Promise<void>
}

/**
 * Starts the sandbox of `npm start`: database (PGlite unless `databaseUrl`) and devnet in parallel,
 * the sandbox merchant and its `sk_test_` key (funded in USDT, USDC and NGN on first start), the
 * HTTP service, and writes the manifest.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const logger = options.logger ?? createLogger()
  const dataDir = resolve(options.dataDir ?? '.tollgate/data')
  const manifestPath = resolve(options.manifestPath ?? join(dirname(dataDir), 'sandbox.json'))
  const stops: (() => Promise<void>)[] = []
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) {
      await fn().catch((error: unknown) => logger.warn({ err: error }, 'sandbox stop step failed'))
    }
  }
  try {
    const [database, devnet] = await Promise.all([
      openDatabase({ databaseUrl: options.databaseUrl, dataDir }).then((d) => {
        stops.push(d.close)
        return d
      }),
      startChains(options.startDevnet ?? startDefaultDevnet).then((d) => {
        stops.push(d.stop)
        return d
      }),
    ])
    const deps: Deps = { db: database.db, clock: systemClock, ids: createIdGenerator(), logger }
    const merchant = await ensureSandboxMerchant(deps, { previousKey: await readPreviousKey(manifestPath) })
    if (merchant.created) {
      await fundSandboxMerchant(deps, { merchantId: merchant.merchantId })
    }
    const reference = createReferenceData(devnet)
    const app = createApp(deps, {
      reference,
      gasFeeReaders: createGasFeeReaders(reference),
      rateLimiter: createRateLimiter({ limit: options.rateLimitPerMinute ?? 600, windowMs: 60_000 }),
      sandboxRoutes: true,
    })
    const server = await listen(app.fetch, options.port ?? 4020, options.host ?? '127.0.0.1')
    stops.push(server.close)
    const manifest = createSandboxManifest({ baseUrl: server.url, apiKey: merchant.apiKey, devnet })
    await writeManifest(manifestPath, manifest)
    return { manifest, manifestPath, merchantId: merchant.merchantId, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

async function startChains(start: () => Promise<Devnet>): Promise<Devnet> {
  try {
    return await start()
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    throw new ServiceError('provider_unavailable', `The devnet (local chains) failed to start: ${reason}`, {
      cause,
    })
  }
}

// Loaded lazily so the service (and its tests with a fake devnet) never depend on the devnet's load.
async function startDefaultDevnet(): Promise<Devnet> {
  const { startDevnet } = await import('@tollgate/devnet')
  return startDevnet()
}

async function readPreviousKey(manifestPath: string): Promise<string | undefined> {
  try {
    const previous = JSON.parse(await readFile(manifestPath, 'utf8')) as Partial<SandboxManifest>
    return typeof previous.apiKey === 'string' ? previous.apiKey : undefined
  } catch {
    // No manifest yet (first start) or an unreadable one: a new key is created.
    return undefined
  }
}

async function writeManifest(path: string, manifest: SandboxManifest): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  // Write then rename so a reader never sees half a file.
  await writeFile(`${path}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 })
  await rename(`${path}.tmp`, path)
}

type Listening = { url: string; close: () => Promise<void> }

function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, host: string) {
  return new Promise<Listening>((resolvePromise, reject) => {
    const server = serve({ fetch, port, hostname: host }, (info: AddressInfo) => {
      resolvePromise({
        url: `http://${host}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            if ('closeAllConnections' in server) {
              server.closeAllConnections()
            }
          }),
      })
    })
    server.once('error', reject)
  })
}
