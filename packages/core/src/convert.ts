import { toCaip2Network, toV1NetworkName } from './networks.js'
import type { FacilitatorRequest, PaymentPayload, PaymentPayloadV1 } from './schemas/payment-payload.js'
import type {
  PaymentRequirements,
  PaymentRequirementsV1,
  ResourceInfo,
} from './schemas/payment-requirements.js'

/** Converts v1 requirements to v2 (CAIP-2 network, `amount`); throws `invalid_network` for unknown names. */
export function toPaymentRequirements(v1: PaymentRequirementsV1): PaymentRequirements {
  return {
    scheme: v1.scheme,
    network: toCaip2Network(v1.network),
    amount: v1.maxAmountRequired,
    asset: v1.asset,
    payTo: v1.payTo,
    maxTimeoutSeconds: v1.maxTimeoutSeconds,
    ...(v1.extra ? { extra: v1.extra } : {}),
  }
}

/** The `ResourceInfo` a v1 requirement carries in its own fields. */
export function getResourceInfoV1(v1: PaymentRequirementsV1): ResourceInfo {
  return {
    url: v1.resource,
    description: v1.description,
    ...(v1.mimeType ? { mimeType: v1.mimeType } : {}),
  }
}

/**
 * Converts v2 requirements to v1 for a v1 client (v1 network name, `maxAmountRequired`, resource
 * fields). Returns `undefined` when the network has no v1 name.
 */
export function toPaymentRequirementsV1(
  requirements: PaymentRequirements,
  resource: ResourceInfo,
): PaymentRequirementsV1 | undefined {
  const network = toV1NetworkName(requirements.network)
  if (!network) {
    return undefined
  }
  return {
    scheme: requirements.scheme,
    network,
    maxAmountRequired: requirements.amount,
    resource: resource.url,
    description: resource.description ?? '',
    mimeType: resource.mimeType ?? 'application/json',
    payTo: requirements.payTo,
    maxTimeoutSeconds: requirements.maxTimeoutSeconds,
    asset: requirements.asset,
    extra: requirements.extra ?? null,
  }
}

/** A facilitator request with both sides in v2 form, and the version the caller spoke. */
export type NormalizedFacilitatorRequest = {
  x402Version: 1 | 2
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
}

/**
 * Brings a `/verify` or `/settle` body to v2: a v1 payload becomes a v2 payload whose `accepted`
 * is built from the v1 payload's scheme/network and the requirements' other fields, so one code
 * path checks both versions.
 */
export function normalizeFacilitatorRequest(request: FacilitatorRequest): NormalizedFacilitatorRequest {
  if (request.paymentPayload.x402Version === 2) {
    return {
      x402Version: 2,
      paymentPayload: request.paymentPayload,
      paymentRequirements: request.paymentRequirements as PaymentRequirements,
    }
  }
  const v1Payload: PaymentPayloadV1 = request.paymentPayload
  const v1Requirements = request.paymentRequirements as PaymentRequirementsV1
  const paymentRequirements = toPaymentRequirements(v1Requirements)
  return {
    x402Version: 1,
    paymentRequirements,
    paymentPayload: {
      x402Version: 2,
      resource: getResourceInfoV1(v1Requirements),
      accepted: {
        ...paymentRequirements,
        scheme: v1Payload.scheme,
        network: toCaip2Network(v1Payload.network),
      },
      payload: v1Payload.payload,
    },
  }
}
