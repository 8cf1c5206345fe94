import type { Clock } from '../deps.js'

/** A {@link Clock} a test moves by hand with `advance(ms)`. */
export type ManualClock = Clock & { advance(ms: number): void }

/** Creates a {@link ManualClock} at `start` (default now). */
export function createManualClock(start = Date.now()): ManualClock {
  let now = start
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms
    },
  }
}
