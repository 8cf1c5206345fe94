import type { Deps } from '../../deps.js'
import type { DepositAddress } from '../types.js'
import { depositAddressColumns, toDepositAddress } from './create-deposit-addresses.js'
import type { IncomingHub } from './incoming-store.js'
import { createLookSchedule, type LookSchedule, type NetworkSignal } from './look-schedule.js'

/** The deposit addresses of one network held in memory, refreshed with the rows added since the last look. */
export type WatchedAddresses = {
  /**
   * Loads the addresses inserted since the previous query and returns them; returns undefined when
   * no query was due (see `signal` of {@link createWatchedAddresses}).
   */
  refresh(): Promise<DepositAddress[] | undefined>
  /** Whether the next `refresh()` will query (it does not count as a look). */
  due(): boolean
  get(address: string): DepositAddress | undefined
  size(): number
  all(): IterableIterator<DepositAddress>
}

/**
 * Creates the watched set of `network`: `refresh()` loads the addresses inserted since the previous
 * query (by `seq`, one indexed query) and returns them; lookups use `normalize` (lower case on EVM).
 * With `signal` (raised by the deposit-address rail of this process when it allocates), the query
 * runs only after an allocation on `network` and every `backstopMs` (allocations of other
 * processes); without it, on every call.
 */
export function createWatchedAddresses(
  deps: Pick<Deps, 'db'>,
  options: {
    network: string
    normalize: (address: string) => string
    signal?: NetworkSignal | undefined
    backstopMs?: number
  },
): WatchedAddresses {
  const byAddress = new Map<string, DepositAddress>()
  const schedule = createLookSchedule({
    network: options.network,
    signal: options.signal,
    ...(options.backstopMs === undefined ? {} : { backstopMs: options.backstopMs }),
  })
  let lastSeq = '0'
  const reread = 100
  return {
    refresh: async () => {
      if (!schedule.due()) {
        return undefined
      }
      schedule.looked()
      const rows = await deps.db
        .selectFrom('deposit_addresses')
        .select([...depositAddressColumns, 'seq'])
        .where('network', '=', options.network)
        // A few rows back: under PostgreSQL a lower seq may commit after a higher one was read.
        .where('seq', '>', String(Math.max(0, Number(lastSeq) - reread)))
        .orderBy('seq')
        .execute()
      const added: DepositAddress[] = []
      for (const row of rows) {
        lastSeq = row.seq
        const key = options.normalize(row.address)
        if (!byAddress.has(key)) {
          const address = toDepositAddress(row)
          byAddress.set(key, address)
          added.push(address)
        }
      }
      return added
    },
    due: () => schedule.due(),
    get: (address) => byAddress.get(options.normalize(address)),
    size: () => byAddress.size,
    all: () => byAddress.values(),
  }
}

/** The options both chain watchers take for when they read the database between polls. */
export type WatcherLookOptions = {
  /**
   * Raised by this process's deposit-address rail when it allocates: the watched addresses are then
   * re-read at the next poll, else only every `backstopMs`. Without it, every poll re-reads them.
   */
  addressSignal?: NetworkSignal | undefined
  /** Longest time between two reads of the addresses and of the *seen* transfers (default 5 s). */
  backstopMs?: number
}

/**
 * A watcher's two database looks: its watched addresses, and the schedule of its read of the *seen*
 * transfers, which runs after one is recorded in this process (`hub.seen`) and every `backstopMs`
 * (recorded by another process). Without `addressSignal` both look on every poll.
 */
export function createWatcherLooks(
  deps: Pick<Deps, 'db'>,
  options: WatcherLookOptions & { network: string; normalize: (address: string) => string; hub: IncomingHub },
): { watched: WatchedAddresses; seenSchedule: LookSchedule } {
  const backstop = options.backstopMs === undefined ? {} : { backstopMs: options.backstopMs }
  return {
    watched: createWatchedAddresses(deps, {
      network: options.network,
      normalize: options.normalize,
      signal: options.addressSignal,
      ...backstop,
    }),
    seenSchedule: createLookSchedule({
      network: options.network,
      signal: options.addressSignal ? options.hub.seen : undefined,
      ...backstop,
    }),
  }
}
