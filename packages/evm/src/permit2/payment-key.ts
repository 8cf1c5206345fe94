import { getEvmChainId, isEvmNetwork, type PaymentPayload, type PaymentRequirements } from '@tollgate/core'
import { Permit2Payload } from '../payloads.js'

/**
 * The key of one Permit2 payment, `permit2:<chainId>:<owner>:<nonce>`: Permit2 spends each owner's
 * nonce at most once, whatever the signature's encoding. `undefined` for a malformed payload or a
 * non-EVM network.
 */
export function getPermit2PaymentKey(
  payment: PaymentPayload,
  requirements: PaymentRequirements,
): string | undefined {
  const parsed = Permit2Payload.safeParse(payment.payload)
  if (!parsed.success || !isEvmNetwork(requirements.network)) {
    return undefined
  }
  const chainId = getEvmChainId(requirements.network)
  const { from, nonce } = parsed.data.permit2Authorization
  return `permit2:${chainId}:${from.toLowerCase()}:${nonce}`
}
