import type { SchemeServer } from '@tollgate/core'
import { createExactRequirements } from '../exact/create-exact-requirements.js'
import { getPermit2PaymentKey } from './payment-key.js'

/**
 * The merchant side of x402 `exact` via Permit2: requirements with
 * `extra.assetTransferMethod: 'permit2'` (plus the token's EIP-712 domain when it has one).
 */
export function createPermit2Server(): SchemeServer {
  return {
    name: 'permit2',
    createRequirements: (parameters) => createExactRequirements('permit2', parameters),
    getPaymentKey: getPermit2PaymentKey,
  }
}
