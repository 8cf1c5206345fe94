import {
  getSchemeName,
  type PaymentRequired,
  type PaymentRequiredV1,
  type PaymentRequirementsV1,
  toPaymentRequirementsV1,
} from '@tollgate/core'

// The network names the legacy v1 client (x402 1.2, `x402-fetch`) validates with a closed enum: one
// unknown name makes it reject the whole 402, so the v1 body lists only these.
const LEGACY_V1_NETWORKS = new Set([
  'abstract',
  'abstract-testnet',
  'base-sepolia',
  'base',
  'avalanche-fuji',
  'avalanche',
  'iotex',
  'solana-devnet',
  'solana',
  'sei',
  'sei-testnet',
  'polygon',
  'polygon-amoy',
  'peaq',
  'story',
  'educhain',
  'skale-base-sepolia',
])

/**
 * The v1 JSON body of a 402 for the same offer: only requirements a v1 client can pay (a network
 * with a legacy v1 name, and not Permit2, which v1 has no way to select). `undefined` when none is
 * left, in which case the body stays `{}`.
 */
export function toPaymentRequiredV1(paymentRequired: PaymentRequired): PaymentRequiredV1 | undefined {
  const accepts: PaymentRequirementsV1[] = []
  for (const requirement of paymentRequired.accepts) {
    if (getSchemeName(requirement) === 'permit2') {
      continue
    }
    const v1 = toPaymentRequirementsV1(requirement, paymentRequired.resource)
    if (v1 && LEGACY_V1_NETWORKS.has(v1.network)) {
      // The legacy schema has `extra` optional but not nullable.
      const { extra, ...rest } = v1
      accepts.push(extra ? { ...rest, extra } : rest)
    }
  }
  if (accepts.length === 0) {
    return undefined
  }
  return {
    x402Version: 1,
    ...(paymentRequired.error !== undefined ? { error: paymentRequired.error } : {}),
    accepts,
  }
}
