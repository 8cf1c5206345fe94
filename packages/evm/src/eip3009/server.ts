import type { SchemeServer } from '@tollgate/core'
import { createExactRequirements } from '../exact/create-exact-requirements.js'
import { getEip3009PaymentKey } from './payment-key.js'

/**
 * The merchant side of x402 `exact` via EIP-3009: requirements with `extra: { name, version }`
 * (the token's EIP-712 domain from the asset registry) and `maxTimeoutSeconds` 300 by default.
 */
export function createEip3009Server(): SchemeServer {
  return {
    name: 'eip3009',
    createRequirements: (parameters) => createExactRequirements('eip3009', parameters),
    getPaymentKey: getEip3009PaymentKey,
  }
}
