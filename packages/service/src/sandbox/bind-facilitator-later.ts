import { AppError, type FacilitatorClient } from '@tollgate/core'

/**
 * A facilitator client that answers through the one `current()` returns: the sandbox's app is
 * composed before its facilitator exists, and the server routes no request to it until it does.
 */
export function bindFacilitatorLater(current: () => FacilitatorClient | undefined): FacilitatorClient {
  const get = () => {
    const client = current()
    if (!client) {
      throw new AppError('provider_unavailable', { message: 'The x402 facilitator is still starting' })
    }
    return client
  }
  return {
    verify: (request) => get().verify(request),
    settle: (request, options) => get().settle(request, options),
    getSupported: () => get().getSupported(),
  }
}
