import { LRUCache } from 'lru-cache'
import type { Address, PublicClient } from 'viem'

/** The RPC capability {@link CodeCache} needs. */
export type CodeClient = Pick<PublicClient, 'getCode'>

const EMPTY_TTL_MS = 60_000
/** Addresses remembered per client: payers are chosen by callers, so the cache must not grow with them. */
export const CODE_CACHE_SIZE = 10_000

type CodeEntry = { hasCode: boolean; expires: number } | Promise<boolean>

/**
 * Remembers whether an address has code (routes signatures to ECDSA or ERC-1271). "Has code" is
 * kept for good (contracts do not lose code in practice); "no code" only for a minute, because a
 * counterfactual wallet may be deployed at any time. Concurrent lookups share one `eth_getCode`.
 * At most `max` addresses are kept (least recently used go first).
 */
export class CodeCache {
  readonly #client: CodeClient
  readonly #now: () => number
  readonly #entries: LRUCache<string, CodeEntry>

  constructor(client: CodeClient, now: () => number = Date.now, max = CODE_CACHE_SIZE) {
    this.#client = client
    this.#now = now
    this.#entries = new LRUCache({ max })
  }

  /** How many addresses (or lookups in flight) the cache holds. */
  get size(): number {
    return this.#entries.size
  }

  /** Records that `address` has code (a wallet this process just deployed), for good. */
  markHasCode(address: Address): void {
    this.#entries.set(address.toLowerCase(), { hasCode: true, expires: Number.POSITIVE_INFINITY })
  }

  /** Whether `address` has deployed code. */
  async hasCode(address: Address): Promise<boolean> {
    const key = address.toLowerCase()
    const entry = this.#entries.get(key)
    if (entry instanceof Promise) {
      return entry
    }
    if (entry && entry.expires > this.#now()) {
      return entry.hasCode
    }
    const lookup = this.#client.getCode({ address }).then(
      (code) => {
        const hasCode = code !== undefined && code !== '0x'
        this.#entries.set(key, {
          hasCode,
          expires: hasCode ? Number.POSITIVE_INFINITY : this.#now() + EMPTY_TTL_MS,
        })
        return hasCode
      },
      (error: unknown) => {
        this.#entries.delete(key)
        throw error
      },
    )
    this.#entries.set(key, lookup)
    return lookup
  }
}

const caches = new WeakMap<CodeClient, CodeCache>()

/** The code cache shared by every facilitator that uses `client`. */
export function getCodeCache(client: CodeClient): CodeCache {
  let cache = caches.get(client)
  if (!cache) {
    cache = new CodeCache(client)
    caches.set(client, cache)
  }
  return cache
}
