/**
 * In-process signals of a change a watcher would otherwise find only by querying each poll: a
 * deposit address allocated on a network, a transfer recorded on a network. `raise` is called when
 * the change is made, which may be before its transaction commits; see {@link createLookSchedule}.
 */
export type NetworkSignal = {
  raise(network: string): void
  lastRaisedAt(network: string): number | undefined
}

/** Creates a {@link NetworkSignal} on the monotonic clock. */
export function createNetworkSignal(): NetworkSignal {
  const raised = new Map<string, number>()
  return {
    raise: (network) => {
      raised.set(network, performance.now())
    },
    lastRaisedAt: (network) => raised.get(network),
  }
}

/** When a watcher's per-poll query is due; `looked()` is called when the query starts. */
export type LookSchedule = { due(): boolean; looked(): void }

/**
 * A query is due on the first poll, while the signal of `network` is recent (until a look started at
 * least `hotMs` after the last raise, so a raise made before its transaction committed is still seen
 * after the commit), and at least every `backstopMs` (changes made by other processes, which raise
 * nothing here). Without a signal every poll looks, as before.
 */
export function createLookSchedule(options: {
  network: string
  signal: NetworkSignal | undefined
  hotMs?: number
  backstopMs?: number
}): LookSchedule {
  const hotMs = options.hotMs ?? 2_000
  const backstopMs = options.backstopMs ?? 5_000
  let lastLook: number | undefined
  return {
    due: () => {
      if (!options.signal || lastLook === undefined) {
        return true
      }
      const now = performance.now()
      const raised = options.signal.lastRaisedAt(options.network)
      return now - lastLook >= backstopMs || (raised !== undefined && raised + hotMs > lastLook)
    },
    looked: () => {
      lastLook = performance.now()
    },
  }
}
