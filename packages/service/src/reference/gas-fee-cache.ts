import type { Clock } from '../deps.js'

/** How long a fee read from a node is reused (docs/service.md "Reference data"). */
export const gasFeeCacheMs = 10_000

/** Reuses a chain's fee read for {@link gasFeeCacheMs}; concurrent reads of one key share one call. */
export type GasFeeCache = <T>(key: string, load: () => Promise<T>) => Promise<T>

/** Creates a {@link GasFeeCache} on `clock`: a failed read is not kept, so the next call asks the node again. */
export function createGasFeeCache(clock: Clock, ttlMs = gasFeeCacheMs): GasFeeCache {
  const entries = new Map<string, { at: number; value: Promise<unknown> }>()
  return <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const now = clock.now().getTime()
    const hit = entries.get(key)
    if (hit && now - hit.at < ttlMs) {
      return hit.value as Promise<T>
    }
    const value = load()
    entries.set(key, { at: now, value })
    value.catch(() => {
      if (entries.get(key)?.value === value) {
        entries.delete(key)
      }
    })
    return value
  }
}
