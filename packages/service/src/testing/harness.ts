import { Writable } from 'node:stream'
import type { Kysely } from 'kysely'
import type { AppOptions } from '../app.js'
import { createApiKey } from '../auth/create-api-key.js'
import { type BaseDeps, type ComposedService, composeService } from '../compose/compose-service.js'
import type { Database } from '../db/database.js'
import type { Clock, Deps } from '../deps.js'
import { createLogger } from '../http/create-logger.js'
import type { JobRunner } from '../jobs/create-job-runner.js'
import { createMerchant } from '../merchants/create-merchant.js'
import type { Rails } from '../rails/types.js'
import type { ServiceSettings } from '../settings.js'

/** A merchant of the harness with its keys. */
export type TestMerchant = { id: string; testKey: string; liveKey: string }

/** An app over a migrated test database with two merchants (A and B), and captured log lines. */
export type Harness = {
  app: ComposedService['app']
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
    rails?: (base: BaseDeps) => Rails
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
  const { rails, settings, clock, ...appOptions } = options
  // Tests subscribe sessions and deposits themselves where they exercise them; the runner is not started.
  const { app, deps, runner } = composeService({
    db,
    logger: createLogger({ destination }),
    ...(clock ? { clock } : {}),
    rails: rails ? { kind: 'custom', create: rails } : { kind: 'sandbox' },
    ...(settings ? { settings } : {}),
    app: appOptions,
    subscriptions: { sessions: false, deposits: false, x402: false },
  })
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
