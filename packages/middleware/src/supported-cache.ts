import type { FacilitatorClient, SupportedKind, SupportedResponse } from '@tollgate/core'

/** A cached view of the facilitator's `GET /supported`. */
export type SupportedCache = {
  /** The cached answer, fetched when missing or older than the TTL; concurrent callers share one fetch. */
  get(): Promise<SupportedResponse>
}

/**
 * Caches `/supported` for `ttlMs` (a failed fetch is not cached, so the next request retries). Only
 * schemes that need a facilitator-chosen value (the Solana fee payer) make the middleware ask.
 */
export function createSupportedCache(
  facilitator: Pick<FacilitatorClient, 'getSupported'>,
  options: { ttlMs: number; now?: () => number },
): SupportedCache {
  const now = options.now ?? Date.now
  let cached: { value: SupportedResponse; at: number } | undefined
  let inFlight: Promise<SupportedResponse> | undefined
  return {
    get() {
      if (cached && now() - cached.at < options.ttlMs) {
        return Promise.resolve(cached.value)
      }
      inFlight ??= facilitator
        .getSupported()
        .then((value) => {
          cached = { value, at: now() }
          return value
        })
        .finally(() => {
          inFlight = undefined
        })
      return inFlight
    },
  }
}

/** The v2 `exact` kind for `network` in a `/supported` answer. */
export function findSupportedKind(supported: SupportedResponse, network: string): SupportedKind | undefined {
  return supported.kinds.find(
    (kind) => kind.x402Version === 2 && kind.scheme === 'exact' && kind.network === network,
  )
}
