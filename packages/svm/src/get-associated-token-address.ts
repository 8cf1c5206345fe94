import type { Address } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'

const cache = new Map<string, Promise<Address>>()
const CACHE_SIZE = 10_000

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
    if (cache.size >= CACHE_SIZE) {
      const oldest = cache.keys().next()
      if (!oldest.done) {
        cache.delete(oldest.value)
      }
    }
    cache.set(key, found)
  }
  return found
}
