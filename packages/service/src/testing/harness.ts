import { Writable } from 'node:stream'
import type { Kysely } from 'kysely'
import { type AppOptions, createApp } from '../app.js'
import { createApiKey } from '../auth/create-api-key.js'
import type { Database } from '../db/database.js'
import { type Clock, createIdGenerator, type Deps, systemClock } from '../deps.js'
import { createLogger } from '../http/create-logger.js'
import { createOutboundHttp } from '../http/create-outbound-http.js'
import { createJobRunner, type JobRunner } from '../jobs/create-job-runner.js'
import { registerServiceJobs } from '../jobs/register-service-jobs.js'
import { createMerchant } from '../merchants/create-merchant.js'
import { createRails } from '../rails/create-rails.js'
import type { Rails } from '../rails/types.js'
import { createDefaultSettings, type ServiceSettings } from '../settings.js'

/** A merchant of the harness with its keys. */
export type TestMerchant = { id: string; testKey: string; liveKey: string }

/** An app over a migrated test database with two merchants (A and B), and captured log lines. */
export type Harness = {
  app: ReturnType<typeof createApp>
  deps: Deps
  a: TestMerchant
  b: TestMerchant
  logs: string[]
  /**
   * A job runner with every service job registered, not started: `await h.runner.runDue()` runs
   * what is due (webhook deliveries, a domain's jobs) in the test's own time (docs/jobs.md).
   */
  runner: JobRunner
  request(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<Response>
}

/** Builds a {@link Harness} over `db`: merchants A and B, each with a test and a live key. */
export async function createHarness(
  db: Kysely<Database>,
  options: AppOptions & {
    rails?: (base: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>) => Rails
    settings?: Partial<ServiceSettings>
    /** The service's clock (default the wall clock); a test that moves time passes a manual one. */
    clock?: Clock
  } = {},
): Promise<Harness> {
  const logs: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk))
      done()
    },
  })
  const base = {
    db,
    clock: options.clock ?? systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ destination }),
  }
  const deps: Deps = {
    ...base,
    rails: options.rails?.(base) ?? createRails(base),
    settings: createDefaultSettings(options.settings),
  }
  const webhookHttp = options.webhookHttp ?? createOutboundHttp()
  const app = createApp(deps, { ...options, webhookHttp })
  const runner = createJobRunner(deps)
  registerServiceJobs(runner, { ...deps, http: webhookHttp })
  const createTestMerchant = async (name: string): Promise<TestMerchant> => {
    const merchant = await createMerchant(deps, { name })
    const test = await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })
    const live = await createApiKey(deps, { merchantId: merchant.id, environment: 'live' })
    return { id: merchant.id, testKey: test.key, liveKey: live.key }
  }
  const a = await createTestMerchant('Merchant A')
  const b = await createTestMerchant('Merchant B')
  return {
    app,
    deps,
    a,
    b,
    logs,
    runner,
    request: (path, init = {}) => {
      const { key, json, ...rest } = init
      const headers = new Headers(rest.headers)
      if (key !== null) {
        headers.set('x-api-key', key ?? a.testKey)
      }
      if (json !== undefined) {
        headers.set('content-type', 'application/json')
      }
      const body = json === undefined ? rest.body : JSON.stringify(json)
      return Promise.resolve(app.request(path, { ...rest, headers, ...(body === undefined ? {} : { body }) }))
    },
  }
}
