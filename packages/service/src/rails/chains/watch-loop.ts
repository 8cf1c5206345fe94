import type { Logger } from 'pino'

/** A running poll loop; `stop()` ends it after the poll in progress. */
export type WatchLoop = { stop(): Promise<void> }

/**
 * Runs `poll` every `intervalMs` (measured from the end of one poll to the start of the next, so polls
 * never overlap); a failed poll is logged and retried at the next tick.
 */
export function startWatchLoop(
  poll: () => Promise<unknown>,
  options: { intervalMs: number; logger: Logger; name: string },
): WatchLoop {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  const tick = () => {
    running = poll()
      .then(
        () => undefined,
        (error: unknown) =>
          options.logger.error({ err: error, watcher: options.name }, 'chain watcher poll failed'),
      )
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(tick, options.intervalMs)
          timer.unref()
        }
      })
  }
  tick()
  return {
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}
