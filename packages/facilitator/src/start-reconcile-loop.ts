import type { Facilitator } from './create-facilitator.js'
import { type Logger, silentLogger } from './logger.js'

/** Options of {@link startReconcileLoop}. */
export type ReconcileLoopOptions = {
  /** Pause between passes in ms (default 15 000). */
  intervalMs?: number
  logger?: Logger
}

/**
 * Runs `facilitator.reconcilePending()` now and then every `intervalMs` (never two passes at
 * once). Returns `stop()`, which resolves after a running pass finished.
 */
export function startReconcileLoop(
  facilitator: Pick<Facilitator, 'reconcilePending'>,
  options: ReconcileLoopOptions = {},
): { stop(): Promise<void> } {
  const logger = options.logger ?? silentLogger
  const intervalMs = options.intervalMs ?? 15_000
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> = Promise.resolve()

  const pass = async () => {
    try {
      const summary = await facilitator.reconcilePending()
      if (summary.checked > 0) {
        logger.info({ ...summary }, 'reconciled settlements')
      }
    } catch (error) {
      logger.error({ err: error }, 'reconciling settlements failed')
    }
  }
  const schedule = () => {
    if (!stopped) {
      timer = setTimeout(() => {
        running = pass().then(schedule)
      }, intervalMs)
      timer.unref()
    }
  }
  running = pass().then(schedule)
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
