import { z } from 'zod'
import { PaymentRequirements, PaymentRequirementsV1, ResourceInfo } from './payment-requirements.js'

/** The scheme-specific part of a payment (EIP-3009 authorization, Permit2 authorization, Solana transaction). */
export const SchemePayload = z.record(z.string(), z.unknown())
export type SchemePayload = z.infer<typeof SchemePayload>

/** x402 v2 `PaymentPayload`: the client echoes the requirement it chose in `accepted`. */
export const PaymentPayload = z.looseObject({
  x402Version: z.literal(2),
  resource: ResourceInfo.optional(),
  accepted: PaymentRequirements,
  payload: SchemePayload,
  extensions: z.record(z.string(), z.unknown()).optional(),
})
export type PaymentPayload = z.infer<typeof PaymentPayload>

/** x402 v1 `PaymentPayload` (`X-PAYMENT` header). */
export const PaymentPayloadV1 = z.looseObject({
  x402Version: z.literal(1),
  scheme: z.string().min(1),
  network: z.string().min(1),
  payload: SchemePayload,
})
export type PaymentPayloadV1 = z.infer<typeof PaymentPayloadV1>

/** Either version of a payment payload, told apart by `x402Version`. */
export const AnyPaymentPayload = z.discriminatedUnion('x402Version', [PaymentPayload, PaymentPayloadV1])
export type AnyPaymentPayload = z.infer<typeof AnyPaymentPayload>

/**
 * Body of the facilitator's `POST /verify` and `POST /settle` (as the reference clients send it).
 * The payload's own `x402Version` decides which requirements shape applies; the top-level
 * `x402Version` is informational.
 */
export const FacilitatorRequest = z.union([
  z.looseObject({
    x402Version: z.number().int().optional(),
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
  }),
  z.looseObject({
    x402Version: z.number().int().optional(),
    paymentPayload: PaymentPayloadV1,
    paymentRequirements: PaymentRequirementsV1,
  }),
])
export type FacilitatorRequest = z.infer<typeof FacilitatorRequest>
