import { getEvmChainId, isEvmNetwork, type PaymentPayload, type PaymentRequirements } from '@tollgate/core'
import { Eip3009Payload } from '../payloads.js'

/**
 * The key of one EIP-3009 payment, `eip3009:<chainId>:<asset>:<from>:<nonce>` (lower case): the
 * token moves money at most once per signer and nonce, whatever the signature's encoding.
 * `undefined` for a malformed payload or a non-EVM network.
 */
export function getEip3009PaymentKey(
  payment: PaymentPayload,
  requirements: PaymentRequirements,
): string | undefined {
  const parsed = Eip3009Payload.safeParse(payment.payload)
  if (!parsed.success || !isEvmNetwork(requirements.network)) {
    return undefined
  }
  const chainId = getEvmChainId(requirements.network)
  const { from, nonce } = parsed.data.authorization
  return `eip3009:${chainId}:${requirements.asset.toLowerCase()}:${from.toLowerCase()}:${nonce.toLowerCase()}`
}
