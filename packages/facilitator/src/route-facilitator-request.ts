import {
  type FacilitatorRequest,
  isAppError,
  normalizeFacilitatorRequest,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SchemeFacilitator,
} from '@tollgate/core'
import { parseFacilitatorRequest } from './parse-facilitator-request.js'

/** Where a facilitator request goes: a scheme with the v2-normalized payment, or a refusal reason. */
export type FacilitatorRoute =
  | {
      ok: true
      scheme: SchemeFacilitator
      x402Version: 1 | 2
      payment: PaymentPayload
      requirements: PaymentRequirements
    }
  | { ok: false; reason: string; message: string; network: string }

/** Options of {@link routeFacilitatorRequest}. */
export type RouteOptions = {
  /** The request is `parseFacilitatorRequest`'s own answer (the HTTP app): skip a second zod pass. */
  parsed?: boolean
}

/**
 * Validates and normalizes a `/verify` or `/settle` request and picks the scheme that serves its
 * network and can handle its payload. Unknown networks answer `invalid_network`, payloads no scheme
 * on that network handles answer `unsupported_scheme` (as the reference's reasons say). Throws
 * `invalid_request` / `invalid_x402_version` for malformed input.
 */
export function routeFacilitatorRequest(
  schemes: readonly SchemeFacilitator[],
  input: FacilitatorRequest,
  options: RouteOptions = {},
): FacilitatorRoute {
  const request = options.parsed ? input : parseFacilitatorRequest(input)
  const rawNetwork = String(request.paymentRequirements.network)
  let normalized: ReturnType<typeof normalizeFacilitatorRequest>
  try {
    normalized = normalizeFacilitatorRequest(request)
  } catch (error) {
    if (isAppError(error, 'invalid_network')) {
      return { ok: false, reason: REASONS.invalidNetwork, message: error.message, network: rawNetwork }
    }
    throw error
  }
  const { paymentPayload: payment, paymentRequirements: requirements } = normalized
  const onNetwork = schemes.filter((scheme) => scheme.networks.includes(requirements.network))
  if (onNetwork.length === 0) {
    return {
      ok: false,
      reason: REASONS.invalidNetwork,
      message: `this facilitator does not serve network ${requirements.network}`,
      network: requirements.network,
    }
  }
  const scheme = onNetwork.find((candidate) => candidate.canHandle(payment, requirements))
  if (!scheme) {
    return {
      ok: false,
      reason: REASONS.unsupportedScheme,
      message: `no scheme for "${requirements.scheme}" payments of this kind on ${requirements.network}`,
      network: requirements.network,
    }
  }
  return { ok: true, scheme, x402Version: normalized.x402Version, payment, requirements }
}
