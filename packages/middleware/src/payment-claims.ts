/**
 * Where the middleware claims each payment before its handler runs, so one payment buys one
 * response however many times it is sent at once (docs/security.md, 'One payment, one delivery').
 * In memory for one process ({@link createMemoryPaymentClaims}, the default); a store shared by
 * every instance where the merchant runs several (`createPostgresPaymentClaims`, or your own).
 */
export type PaymentClaimStore = {
  /**
   * Claims `key` until `expiresAt` (ms since epoch); `false` when a live claim already holds it.
   * Must be atomic across every caller sharing the store.
   */
  claim(key: string, expiresAt: number, now: number): Promise<boolean>
  /** Ends a claim whose request charged nothing, so the same payment can be sent again. */
  release(key: string): Promise<void>
}

const PRUNE_EVERY_MS = 60_000

/** A {@link PaymentClaimStore} in this process's memory; expired claims are swept once a minute. */
export function createMemoryPaymentClaims(): PaymentClaimStore {
  const claims = new Map<string, number>()
  let nextPrune = 0
  const prune = (now: number) => {
    if (now < nextPrune) {
      return
    }
    nextPrune = now + PRUNE_EVERY_MS
    for (const [key, expiresAt] of claims) {
      if (expiresAt <= now) {
        claims.delete(key)
      }
    }
  }
  return {
    async claim(key, expiresAt, now) {
      prune(now)
      const held = claims.get(key)
      if (held !== undefined && held > now) {
        return false
      }
      claims.set(key, expiresAt)
      return true
    },
    async release(key) {
      claims.delete(key)
    },
  }
}
