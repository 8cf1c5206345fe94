import type { Logger } from 'pino'
import type { OpenedDatabase } from '../db/open-database.js'
import { createIdGenerator, type Deps, systemClock } from '../deps.js'
import { createOutboundHttp } from '../http/create-outbound-http.js'
import { createRails } from '../rails/create-rails.js'
import { createDefaultSettings, type ServiceSettings } from '../settings.js'
import { createJobRunner, type JobRunnerOptions } from './create-job-runner.js'
import { registerServiceJobs } from './register-service-jobs.js'

/** Input of {@link runWorker}. */
export type RunWorkerInput = {
  database: OpenedDatabase
  logger: Logger
  /** Resolves when the worker should stop (SIGINT, SIGTERM). */
  stopped: Promise<void>
  settings?: Partial<ServiceSettings>
  runner?: Pick<JobRunnerOptions, 'concurrency' | 'leaseMs' | 'pollMs' | 'workerId'>
}

/**
 * Runs the service's jobs in this process until `stopped` resolves, then stops gracefully (running
 * jobs finish; the rest stay queued for the next worker). The `tollgate worker` command: one more
 * worker beside the service, or instead of its in-process runner (docs/jobs.md).
 */
export async function runWorker(input: RunWorkerInput): Promise<{ workerId: string }> {
  const base = { db: input.database.db, clock: systemClock, ids: createIdGenerator(), logger: input.logger }
  const deps: Deps = { ...base, rails: createRails(base), settings: createDefaultSettings(input.settings) }
  const http = createOutboundHttp()
  const runner = createJobRunner({ ...deps, ...input.runner, notifications: input.database.notifications })
  registerServiceJobs(runner, { ...deps, http })
  await runner.start()
  input.logger.info({ workerId: runner.workerId, engine: input.database.engine }, 'worker started')
  await input.stopped
  await runner.stop()
  await http.close()
  input.logger.info({ workerId: runner.workerId }, 'worker stopped')
  return { workerId: runner.workerId }
}
