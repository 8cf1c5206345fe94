/** One signed payment, valued in USD with 18 decimals (stablecoins count 1:1). */
export type SpendEntry = {
  id: string
  /** When it was signed, ms since the epoch. */
  at: number
  /** USD value in units of 1e-18 dollars. */
  usd: bigint
  url: string
  network: string
  asset: string
  /** Atomic units of the asset. */
  amount: string
}

/**
 * Where the agent keeps what it has signed, for the rolling 24-hour limit. In memory by default;
 * inject a persistent one to keep the limit across restarts or processes.
 */
export type SpendLedger = {
  add(entry: SpendEntry): void | Promise<void>
  /** Drops an entry whose payment was never signed (signing failed). */
  remove(id: string): void | Promise<void>
  /** Sum of `usd` of the entries at or after `since` (ms). */
  totalSince(since: number): bigint | Promise<bigint>
}

/** An in-memory {@link SpendLedger}; entries older than `retainMs` (default 24 h) are pruned. */
export function createMemorySpendLedger(
  options: { retainMs?: number; now?: () => number } = {},
): SpendLedger & { entries(): SpendEntry[] } {
  const retainMs = options.retainMs ?? 24 * 60 * 60 * 1000
  const now = options.now ?? Date.now
  let entries: SpendEntry[] = []
  const prune = () => {
    const cutoff = now() - retainMs
    entries = entries.filter((entry) => entry.at >= cutoff)
  }
  return {
    add(entry) {
      prune()
      entries.push(entry)
    },
    remove(id) {
      entries = entries.filter((entry) => entry.id !== id)
    },
    totalSince(since) {
      prune()
      return entries.reduce((sum, entry) => (entry.at >= since ? sum + entry.usd : sum), 0n)
    },
    entries: () => [...entries],
  }
}
