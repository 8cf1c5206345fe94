import type { Deps } from '../../deps.js'
import type { DepositAddress } from '../types.js'
import { depositAddressColumns, toDepositAddress } from './create-deposit-addresses.js'

/** The deposit addresses of one network held in memory, refreshed with the rows added since the last look. */
export type WatchedAddresses = {
  refresh(): Promise<DepositAddress[]>
  get(address: string): DepositAddress | undefined
  size(): number
  all(): IterableIterator<DepositAddress>
}

/**
 * Creates the watched set of `network`: `refresh()` loads the addresses inserted since the previous
 * call (by `seq`, one indexed query) and returns them; lookups use `normalize` (lower case on EVM).
 */
export function createWatchedAddresses(
  deps: Pick<Deps, 'db'>,
  options: { network: string; normalize: (address: string) => string },
): WatchedAddresses {
  const byAddress = new Map<string, DepositAddress>()
  let lastSeq = '0'
  const reread = 100
  return {
    refresh: async () => {
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
    get: (address) => byAddress.get(options.normalize(address)),
    size: () => byAddress.size,
    all: () => byAddress.values(),
  }
}
