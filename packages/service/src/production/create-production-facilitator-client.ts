import type { FacilitatorClient } from '@tollgate/core'
import { createHttpFacilitatorClient } from '@tollgate/middleware'

/**
 * The HTTP client of the facilitator behind `tollgate serve`'s /x402 routes; with a token, every
 * call carries `Authorization: Bearer <token>`, the header the facilitator checks (docs/facilitator.md "Auth").
 */
export function createProductionFacilitatorClient(input: {
  url: string
  token?: string | undefined
  fetch?: typeof fetch
}): FacilitatorClient {
  return createHttpFacilitatorClient({
    url: input.url,
    ...(input.token ? { headers: { Authorization: `Bearer ${input.token}` } } : {}),
    ...(input.fetch ? { fetch: input.fetch } : {}),
  })
}
