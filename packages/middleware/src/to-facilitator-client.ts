import type { FacilitatorClient } from '@tollgate/core'
import { createHttpFacilitatorClient } from './create-http-facilitator-client.js'
import type { FacilitatorOption } from './types.js'

/** Turns the `facilitator` option (URL, HTTP options or a client) into a {@link FacilitatorClient}. */
export function toFacilitatorClient(option: FacilitatorOption): FacilitatorClient {
  if (typeof option === 'string') {
    return createHttpFacilitatorClient({ url: option })
  }
  if ('verify' in option && typeof option.verify === 'function') {
    return option
  }
  return createHttpFacilitatorClient(option as Exclude<FacilitatorOption, string | FacilitatorClient>)
}
