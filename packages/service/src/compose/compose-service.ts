import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import { type AppOptions, createApp } from '../app.js'
import type { Database } from '../db/database.js'
import type { Notifications } from '../db/notifications.js'
import { subscribeDeposits } from '../deposits/subscribe-deposits.js'
import { type Clock, createIdGenerator, type Deps, systemClock } from '../deps.js'
import { createOutboundHttp } from '../http/create-outbound-http.js'
import { createHttpMetrics } from '../http/metrics.js'
import { createJobRunner, type JobRunner, type JobRunnerOptions } from '../jobs/create-job-runner.js'
import { registerServiceJobs, type ServiceJobsOptions } from '../jobs/register-service-jobs.js'
import { registerSessionHandlers } from '../payments/register-session-handlers.js'
import { subscribePayoutRails } from '../payouts/submit-payout.js'
import { createProductionRails, type ProductionRailsOptions } from '../production/create-production-rails.js'
import { createRails, type RailsOptions } from '../rails/create-rails.js'
import type { Rails } from '../rails/types.js'
import { createDefaultSettings, type ServiceSettings } from '../settings.js'
import { createWebhookMetrics } from '../webhooks/webhook-metrics.js'
import { registerX402Handlers } from '../x402/credit-confirmed-x402.js'

/** What every rail is built from: the database, the clock, ids and the logger. */
export type BaseDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>

/**
 * Which rails the service runs on: the sandbox's (devnet chains, sandbox fiat providers), the
 * production ones (configured live networks, no fiat provider), or a test's own.
 */
export type ServiceRailsConfig =
  | ({ kind: 'sandbox' } & RailsOptions)
  | ({ kind: 'production' } & ProductionRailsOptions)
  | { kind: 'custom'; create: (base: BaseDeps) => Rails }

/** The subscriptions of the service on the rails' asynchronous reports; each defaults to on. */
export type ServiceSubscriptions = {
  sessions?: boolean
  deposits?: boolean
  payouts?: boolean
  /** x402 payments recorded pending (below the confirmation count), credited when confirmed. */
  x402?: boolean
}

/** Input of {@link composeService}: what a composition root has opened and chosen. */
export type ComposeServiceConfig = {
  db: Kysely<Database>
  /** LISTEN/NOTIFY wake-ups of the job runner (`openDatabase().notifications`). */
  notifications?: Notifications | undefined
  logger: Logger
  clock?: Clock
  rails: ServiceRailsConfig
  /** Replaces fields of the sandbox defaults (`createDefaultSettings`). */
  settings?: Partial<ServiceSettings>
  /** The HTTP app's options, or a function of the composed deps returning them. */
  app?: AppOptions | ((deps: Deps) => AppOptions)
  /** The job runner: whether `start()` starts it (default true), its tuning and the jobs' options. */
  jobs?: ServiceJobsOptions & {
    run?: boolean
    runner?: Pick<JobRunnerOptions, 'concurrency' | 'leaseMs' | 'pollMs' | 'workerId'>
  }
  /** Whether `start()` starts the rails (chain watchers, crypto-send resumption); default true. */
  startRails?: boolean
  subscriptions?: ServiceSubscriptions
}

/** A composed service: its deps, HTTP app and job runner (every job registered), and its lifecycle. */
export type ComposedService = {
  deps: Deps
  app: ReturnType<typeof createApp>
  runner: JobRunner
  /** Starts the job runner (unless `jobs.run` is false), then the rails (unless `startRails` is false). */
  start(): Promise<void>
  /** Stops the rails and the runner (`timeoutMs` for running jobs), unsubscribes, closes the webhook client. */
  stop(options?: { timeoutMs?: number }): Promise<void>
}

/**
 * The one composition of the service (sandbox, `tollgate serve`, `tollgate worker`, the OpenAPI
 * build, the test harness): builds the deps from `config.rails` and `config.settings`, wires every
 * subscription (sessions, deposits, payouts; the rails wire their own sweeps), registers every job
 * and builds the app. Opens nothing and starts nothing: `start()` does.
 */
export function composeService(config: ComposeServiceConfig): ComposedService {
  const base: BaseDeps = {
    db: config.db,
    clock: config.clock ?? systemClock,
    ids: createIdGenerator(),
    logger: config.logger,
  }
  const rails = createServiceRails(base, config.rails)
  const deps: Deps = { ...base, rails, settings: createDefaultSettings(config.settings) }
  const appOptions = typeof config.app === 'function' ? config.app(deps) : (config.app ?? {})
  const ownHttp = appOptions.webhookHttp === undefined
  const webhookHttp = appOptions.webhookHttp ?? createOutboundHttp()
  const metrics = appOptions.metrics ?? createHttpMetrics()
  const webhookMetrics = appOptions.webhookMetrics ?? createWebhookMetrics(metrics.registry)
  const subscriptions = config.subscriptions ?? {}
  const unsubscribes = [
    subscriptions.deposits === false ? undefined : subscribeDeposits(deps),
    subscriptions.sessions === false ? undefined : registerSessionHandlers(deps),
    subscriptions.payouts === false ? undefined : subscribePayoutRails(deps),
    subscriptions.x402 === false ? undefined : registerX402Handlers(deps),
  ]
  const runner = createJobRunner({ ...deps, ...config.jobs?.runner, notifications: config.notifications })
  const { run: _run, runner: _tuning, ...jobsOptions } = config.jobs ?? {}
  registerServiceJobs(runner, { ...deps, http: webhookHttp, metrics: webhookMetrics }, jobsOptions)
  const app = createApp(deps, { ...appOptions, webhookHttp, metrics, webhookMetrics })
  let runnerStarted = false
  let railsStarted = false
  return {
    deps,
    app,
    runner,
    start: async () => {
      if ((config.jobs?.run ?? true) && !runnerStarted) {
        runnerStarted = true
        await runner.start()
      }
      if ((config.startRails ?? true) && !railsStarted) {
        railsStarted = true
        await rails.start()
      }
    },
    stop: async (options = {}) => {
      if (railsStarted) {
        railsStarted = false
        await rails.stop()
      }
      if (runnerStarted) {
        runnerStarted = false
        await runner.stop(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
      }
      for (const unsubscribe of unsubscribes.splice(0)) {
        unsubscribe?.()
      }
      if (ownHttp) {
        await webhookHttp.close()
      }
    },
  }
}

function createServiceRails(base: BaseDeps, config: ServiceRailsConfig): Rails {
  switch (config.kind) {
    case 'custom':
      return config.create(base)
    case 'production': {
      const { kind: _kind, ...options } = config
      return createProductionRails(base, options)
    }
    case 'sandbox': {
      const { kind: _kind, ...options } = config
      return createRails(base, options)
    }
  }
}
