import { type ComposeServiceConfig, composeService } from '../compose/compose-service.js'
import type { JobRunnerOptions } from './create-job-runner.js'

/** Input of {@link runWorker}: the service's composition (rails and settings of sandbox or production). */
export type RunWorkerInput = {
  service: Omit<ComposeServiceConfig, 'app' | 'jobs' | 'startRails'>
  /** Resolves when the worker should stop (SIGINT, SIGTERM). */
  stopped: Promise<void>
  runner?: Pick<JobRunnerOptions, 'concurrency' | 'leaseMs' | 'pollMs' | 'workerId'>
}

/**
 * Runs the service's jobs in this process until `stopped` resolves, then stops gracefully (running
 * jobs finish; the rest stay queued for the next worker). The `tollgate worker` command: one more
 * worker beside the service, or instead of its in-process runner (docs/jobs.md). It composes the
 * service as the server does, so its jobs sweep and re-query payouts on the same rails; its rails
 * start too (crypto sends resumed, chains watched, every report subscribed).
 */
export async function runWorker(input: RunWorkerInput): Promise<{ workerId: string }> {
  const service = composeService({
    ...input.service,
    jobs: { run: true, ...(input.runner ? { runner: input.runner } : {}) },
  })
  const { logger } = service.deps
  try {
    await service.start()
    logger.info({ workerId: service.runner.workerId }, 'worker started')
    await input.stopped
  } finally {
    await service.stop()
  }
  logger.info({ workerId: service.runner.workerId }, 'worker stopped')
  return { workerId: service.runner.workerId }
}
