import type { Deps } from '../../deps.js'
import { createLookSchedule, type NetworkSignal } from './look-schedule.js'

/** The sweeps of one network settled since the last look, as `{addressId}:{asset}` keys. */
export type SweptAccounts = { refresh(): Promise<string[]> }

// Sweeps are looked up from a little before the previous look: a sweep recorded by another process
// whose clock runs behind, or whose transaction committed after the look read, is still found.
const overlapMs = 60_000

/**
 * Reads the sweeps of `network` (sends from a deposit address, confirmed) recorded since the last
 * look, each once. With `signal` (raised when this process settles a sweep) the query runs only
 * after such a raise and every `backstopMs` (sweeps settled by other processes); without it, on
 * every call.
 */
export function createSweptAccounts(
  deps: Pick<Deps, 'db' | 'clock'>,
  options: { network: string; signal?: NetworkSignal | undefined; backstopMs?: number },
): SweptAccounts {
  const schedule = createLookSchedule({
    network: options.network,
    signal: options.signal,
    ...(options.backstopMs === undefined ? {} : { backstopMs: options.backstopMs }),
  })
  // Sweeps already reported, with their update time (forgotten once older than the overlap).
  const reported = new Map<string, number>()
  let since = deps.clock.now().getTime() - overlapMs
  return {
    refresh: async () => {
      if (!schedule.due()) {
        return []
      }
      schedule.looked()
      const lookedAt = deps.clock.now().getTime()
      const rows = await deps.db
        .selectFrom('crypto_sends')
        .select(['id', 'source_address_id', 'asset', 'updated_at'])
        .where('network', '=', options.network)
        .where('source_address_id', 'is not', null)
        .where('updated_at', '>=', new Date(since))
        .where('status', '=', 'confirmed')
        .execute()
      since = lookedAt - overlapMs
      for (const [id, at] of reported) {
        if (at < since) {
          reported.delete(id)
        }
      }
      const keys: string[] = []
      for (const row of rows) {
        if (!reported.has(row.id)) {
          reported.set(row.id, new Date(row.updated_at).getTime())
          keys.push(`${row.source_address_id}:${row.asset}`)
        }
      }
      return keys
    },
  }
}
