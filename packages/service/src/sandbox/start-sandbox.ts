import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { AppError } from '@tollgate/core'
import type { Devnet, EvmFork } from '@tollgate/devnet'
import type { Facilitator } from '@tollgate/facilitator'
import { mount } from 'hono/mount'
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
import { createPaymentSession } from '../payments/create-payment-session.js'
import { registerSessionHandlers } from '../payments/register-session-handlers.js'
import { createRails } from '../rails/create-rails.js'
import { createGasFeeReaders } from '../reference/get-gas-fees.js'
import { createReferenceData, type ReferenceData } from '../reference/reference-data.js'
import { resealStoredSecrets } from '../secrets/reseal-stored-secrets.js'
import { deriveSandboxSecretKeyring } from '../secrets/secret-keyring.js'
import { createDefaultSettings } from '../settings.js'
import { createWebhookMetrics } from '../webhooks/webhook-metrics.js'
import { registerX402Handlers } from '../x402/credit-confirmed-x402.js'
import type { SandboxSmartAccount } from './create-sandbox-safes.js'
import { ensureSandboxMerchant } from './ensure-sandbox-merchant.js'
import { fundOperatingKeys } from './fund-operating-keys.js'
import { fundSandboxMerchant } from './fund-sandbox-merchant.js'
import { listen, type NodeFetch, type NodeListener } from './listen.js'
import { readOrCreateMasterSeed } from './read-or-create-master-seed.js'
import { renderSandboxHome } from './sandbox-home.js'
import { createSandboxManifest, type SandboxManifest } from './sandbox-manifest.js'

/** What a mounted sub-app may use: the service deps, the running devnet, and the public base URL. */
export type SandboxContext = {
  deps: Deps
  devnet: Devnet
  reference: ReferenceData
  /** `http://127.0.0.1:4020`, known once the server listens. */
  baseUrl: string
  merchantId: string
  apiKey: string
  /** The in-process facilitator, when the sandbox was started with one. */
  facilitator?: Facilitator
  /** The sandbox's job runner: a mount registers its job handlers here (docs/jobs.md). */
  runner: JobRunner
}

/**
 * A handler served on the sandbox's server under `path` (`/facilitator`, `/demo/paid`); it sees
 * request paths relative to `path`. A hono sub-app fits as `{ path, fetch: subApp.fetch }`.
 */
export type SandboxMount = {
  path: string
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>
  /**
   * The same handler as a Node request listener: the server uses it for requests to `path`
   * (`fetch` still serves `app.request()`); the facilitator's serves verify and settle without hono.
   */
  listener?: NodeListener
  /** Called on `stop()`, before the database and devnet close. */
  stop?: () => Promise<void>
}

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
  /**
   * Passed to the default devnet (`--fork`, `--fund` of `npm start`): EVM networks run as forks of
   * an RPC, and addresses funded on every EVM network (docs/fork-testing.md).
   */
  devnet?: { forks?: readonly EvmFork[]; fund?: readonly `0x${string}`[] }
  rateLimitPerMinute?: number
  /** Reverse proxies whose `X-Forwarded-For` the hosted pages' per-IP limits believe (default none). */
  trustedProxies?: string[]
  /** Builds the in-process x402 facilitator (the merchant API's /x402 routes and the mounts use it). */
  createFacilitator?: (
    context: Pick<SandboxContext, 'deps' | 'devnet'>,
  ) => Promise<{ facilitator: Facilitator; stop: () => Promise<void>; smartAccounts?: SandboxSmartAccount[] }>
  /** More apps on the same server (the facilitator, a demo paid resource), built once it listens. */
  mounts?: (context: SandboxContext) => SandboxMount[] | Promise<SandboxMount[]>
  /** How often expired pending ledger transfers are voided (ms, default 5000). */
  expiryIntervalMs?: number
  /** Chain watchers' poll interval (ms, default 250). */
  watcherIntervalMs?: number
  /**
   * Run the job runner in this process (default true); false when a separate `tollgate worker`
   * process on the same PostgreSQL runs the jobs (docs/jobs.md).
   */
  runJobs?: boolean
}

/** A running sandbox: its manifest (URLs, key, chains, wallets), the root app, and `stop()` for everything. */
export type Sandbox = {
  manifest: SandboxManifest
  manifestPath: string
  merchantId: string
  /** The root hono app (service under `/api/v1`, plus the mounts); `app.request()` works in tests. */
  app: ReturnType<typeof createApp>
  deps: Deps
  devnet: Devnet
  /** The job runner with every service job registered (started unless `runJobs: false`). */
  runner: JobRunner
  stop(): Promise<void>
}

/**
 * Starts the sandbox of `npm start`: database (PGlite unless `databaseUrl`) and devnet in parallel,
 * the sandbox merchant and its `sk_test_` key (funded once in USDT, USDC and NGN), the HTTP server
 * with the service and the extra mounts, the job runner (webhooks, expiring pending transfers), and
 * writes the manifest.
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
      startChains(options.startDevnet ?? (() => startDefaultDevnet(options.devnet ?? {}))).then((d) => {
        stops.push(d.stop)
        return d
      }),
    ])
    const base = { db: database.db, clock: systemClock, ids: createIdGenerator(), logger }
    const masterSeed = await readOrCreateMasterSeed(join(dirname(dataDir), 'master-seed'))
    const rails = createRails(base, {
      masterSeed,
      networks: devnet.networks,
      pollIntervalMs: options.watcherIntervalMs ?? 250,
    })
    // The public base URL is known once the server listens; settings are completed below.
    // Webhook secrets are stored encrypted under a key derived from the master seed (`tollgate worker`
    // derives the same one); rows stored in clear by an older release are encrypted here.
    const settings = createDefaultSettings({
      trustedProxies: options.trustedProxies ?? [],
      secretKeyring: deriveSandboxSecretKeyring(masterSeed),
    })
    const deps: Deps = { ...base, rails, settings }
    await resealStoredSecrets(deps)
    // Incoming crypto to deposit addresses and NGN into virtual accounts become deposits.
    const unsubscribeDeposits = subscribeDeposits(deps)
    stops.push(async () => unsubscribeDeposits())
    const merchant = await ensureSandboxMerchant(deps, { previousKey: await readPreviousKey(manifestPath) })
    await fundSandboxMerchant(deps, { merchantId: merchant.merchantId })
    const metrics = createHttpMetrics()
    const webhookMetrics = createWebhookMetrics(metrics.registry)
    const webhookHttp = createOutboundHttp()
    stops.push(() => webhookHttp.close())
    const runner = createJobRunner({ ...deps, notifications: database.notifications })
    registerServiceJobs(
      runner,
      { ...deps, http: webhookHttp, metrics: webhookMetrics },
      options.expiryIntervalMs === undefined ? {} : { expiryIntervalMs: options.expiryIntervalMs },
    )
    if (options.runJobs ?? true) {
      await runner.start()
      stops.push(() => runner.stop({ timeoutMs: 5_000 }))
    }
    // Subscribed before the watchers start, so no report of a session's address is missed.
    const unsubscribeSessions = registerSessionHandlers(deps)
    stops.push(async () => unsubscribeSessions())
    // x402 payments recorded pending (below the chain's confirmation count) are credited when confirmed.
    const unsubscribeX402 = registerX402Handlers(deps)
    stops.push(async () => unsubscribeX402())
    await fundOperatingKeys(deps, devnet)
    await rails.start()
    stops.push(rails.stop)
    // Listen first (answering 503 meanwhile) so mounts can be built with the real base URL.
    let handle: NodeFetch = () => new Response('starting', { status: 503 })
    const server = await listen((request, env) => handle(request, env), {
      port: options.port ?? 4020,
      host: options.host ?? '127.0.0.1',
    })
    stops.push(server.close)
    deps.settings.publicBaseUrl = server.url
    const reference = createReferenceData(devnet)
    const x402 = await options.createFacilitator?.({ deps, devnet })
    if (x402) {
      stops.push(x402.stop)
    }
    const manifest = createSandboxManifest({
      baseUrl: server.url,
      apiKey: merchant.apiKey,
      devnet,
      smartAccounts: x402?.smartAccounts ?? [],
    })
    const app = createApp(deps, {
      ...(x402 ? { facilitator: x402.facilitator } : {}),
      checkout: { createSampleSession: () => createSampleSession(deps, merchant.merchantId) },
      reference,
      gasFeeReaders: createGasFeeReaders(reference),
      rateLimiter: createRateLimiter({ limit: options.rateLimitPerMinute ?? 600, windowMs: 60_000 }),
      sandboxRoutes: true,
      metrics,
      webhookMetrics,
      webhookHttp,
    })
    const context: SandboxContext = {
      deps,
      devnet,
      reference,
      baseUrl: server.url,
      runner,
      ...merchant,
      ...(x402 ? { facilitator: x402.facilitator } : {}),
    }
    for (const extra of (await options.mounts?.(context)) ?? []) {
      const path = extra.path.replace(/\/+$/, '')
      // The server hands these paths to the mount directly; the app keeps them for app.request().
      server.route(path, extra.fetch, extra.listener)
      app.all(path, mount(extra.fetch))
      app.all(`${path}/*`, mount(extra.fetch))
      if (extra.stop) {
        stops.push(extra.stop)
      }
    }
    app.get('/', (c) => renderSandboxHome(c, manifest))
    handle = app.fetch
    await writeManifest(manifestPath, manifest)
    return { manifest, manifestPath, merchantId: merchant.merchantId, app, deps, devnet, runner, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

// The session behind the manifest's checkoutUrl: 10.00 USD, asset and chain left to the customer.
async function createSampleSession(deps: Deps, merchantId: string): Promise<string> {
  const session = await createPaymentSession(deps, {
    merchantId,
    environment: 'test',
    format: 'current',
    body: {
      title: 'Sample order',
      description: 'A sandbox payment session',
      amount: '10.00',
      currency: 'USD',
    },
  })
  return session.row.reference
}

async function startChains(start: () => Promise<Devnet>): Promise<Devnet> {
  try {
    return await start()
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    throw new AppError('provider_unavailable', {
      message: `The devnet (local chains) failed to start: ${reason}`,
      cause,
    })
  }
}

// Loaded lazily so the service (and its tests with a fake devnet) never depend on the devnet's load.
// `@tollgate/devnet` is not a runtime dependency of the service (production runs without it):
// `tollgate start` (@tollgate/cli) passes its own; without it the package must be installed.
async function startDefaultDevnet(evm: NonNullable<StartSandboxOptions['devnet']>): Promise<Devnet> {
  const devnet = await import('@tollgate/devnet').catch((cause: unknown) => {
    throw new AppError('provider_unavailable', {
      message:
        'the sandbox needs @tollgate/devnet, which is not installed: run it with `tollgate start` (@tollgate/cli) or `npm install @tollgate/devnet`',
      cause,
    })
  })
  return devnet.startDevnet({ evm })
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
