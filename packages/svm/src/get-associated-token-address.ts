import type { Address } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import { LRUCache } from 'lru-cache'

// Bounded (least recently used go first): owners and mints come from callers' requests.
const cache = new LRUCache<string, Promise<Address>>({ max: 10_000 })

/**
 * The associated token account of `(owner, mint)` under `tokenProgram`. Memoized: deriving a PDA
 * hashes and curve-checks up to 255 candidates, and merchants reuse a handful of `payTo` wallets.
 */
export function getAssociatedTokenAddress(
  owner: Address,
  mint: Address,
  tokenProgram: Address,
): Promise<Address> {
  const key = `${owner}:${mint}:${tokenProgram}`
  let found = cache.get(key)
  if (!found) {
    found = findAssociatedTokenPda({ owner, mint, tokenProgram }).then(([ata]) => ata)
    // A failed derivation (not an address) is not worth remembering.
    found.catch(() => cache.delete(key))
    cache.set(key, found)
  }
  return found
}

/** How many derivations the cache holds (for memory tests and monitoring). */
export function getAssociatedTokenCacheSize(): number {
  return cache.size
}
