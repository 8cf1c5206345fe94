import {
  type AnyPaymentPayload,
  findAcceptedMismatch,
  getSchemeName,
  type PaymentPayloadV1,
  type PaymentRequirements,
  type SchemeName,
  sameAddress,
  toCaip2Network,
} from '@tollgate/core'

/**
 * The route requirement a payment pays for, or `undefined`. v2: `accepted` must deep-equal the
 * requirement on every field but `extra`, and `accepted.extra` must contain the requirement's
 * `extra` (minus dynamic fields). v1 payloads carry only scheme and network, so the requirement is
 * picked by scheme, network, payload shape and (EVM) the signed payee and amount.
 */
export function matchPayment(
  payment: AnyPaymentPayload,
  requirements: readonly PaymentRequirements[],
): PaymentRequirements | undefined {
  if (payment.x402Version === 2) {
    return requirements.find((requirement) => matchesAccepted(requirement, payment.accepted))
  }
  return matchV1Payment(payment, requirements)
}

function matchesAccepted(required: PaymentRequirements, accepted: PaymentRequirements): boolean {
  return findAcceptedMismatch(accepted, required) === undefined
}

function matchV1Payment(
  payment: PaymentPayloadV1,
  requirements: readonly PaymentRequirements[],
): PaymentRequirements | undefined {
  let network: string
  try {
    network = toCaip2Network(payment.network)
  } catch {
    return undefined
  }
  const shape = getPayloadScheme(payment.payload)
  const candidates = requirements.filter(
    (r) => r.scheme === payment.scheme && r.network === network && getSchemeName(r) === shape,
  )
  const authorization = payment.payload.authorization
  if (candidates.length > 1 && isRecord(authorization)) {
    const exact = candidates.find(
      (r) =>
        typeof authorization.to === 'string' &&
        sameAddress(network, authorization.to, r.payTo) &&
        authorization.value === r.amount,
    )
    if (exact) {
      return exact
    }
  }
  return candidates[0]
}

/** Which Tollgate scheme a scheme payload's shape belongs to. */
export function getPayloadScheme(payload: Record<string, unknown>): SchemeName | undefined {
  if ('permit2Authorization' in payload) {
    return 'permit2'
  }
  if ('authorization' in payload) {
    return 'eip3009'
  }
  return 'transaction' in payload ? 'solana' : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
