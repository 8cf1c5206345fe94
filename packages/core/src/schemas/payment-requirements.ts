import { z } from 'zod'
import { isCaip2Network } from '../networks.js'

const NonEmptyString = z.string().min(1)

/** An amount in atomic units as a decimal string (`"10000"` = 0.01 of a 6-decimal token). */
export const AtomicAmount = z
  .string()
  .regex(/^(0|[1-9]\d{0,77})$/, 'must be an integer amount in atomic units, as a decimal string')
  .describe('amount in the asset’s atomic units, decimal string')
export type AtomicAmount = z.infer<typeof AtomicAmount>

/** A CAIP-2 network id (x402 v2). */
export const Caip2Network = z
  .string()
  .refine(isCaip2Network, 'must be a CAIP-2 network id such as eip155:8453')

const Extra = z.record(z.string(), z.unknown())

/** x402 v2 `ResourceInfo`: what is being paid for. */
export const ResourceInfo = z.looseObject({
  url: NonEmptyString,
  description: z.string().optional(),
  mimeType: z.string().optional(),
  serviceName: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[\x20-\x7e]+$/)
    .optional(),
  tags: z
    .array(
      z
        .string()
        .min(1)
        .max(32)
        .regex(/^[\x20-\x7e]+$/),
    )
    .max(5)
    .optional(),
  iconUrl: z.string().max(2048).optional(),
})
export type ResourceInfo = z.infer<typeof ResourceInfo>

/** x402 v2 `PaymentRequirements`: one way to pay, an element of `accepts[]`. Unknown fields are kept. */
export const PaymentRequirements = z.looseObject({
  scheme: NonEmptyString,
  network: Caip2Network,
  amount: AtomicAmount,
  asset: NonEmptyString,
  payTo: NonEmptyString,
  maxTimeoutSeconds: z.number().int().positive(),
  extra: Extra.optional(),
})
export type PaymentRequirements = z.infer<typeof PaymentRequirements>

/** x402 v1 `PaymentRequirements` (`maxAmountRequired`, v1 network names, per-requirement resource). */
export const PaymentRequirementsV1 = z.looseObject({
  scheme: NonEmptyString,
  network: NonEmptyString,
  maxAmountRequired: AtomicAmount,
  resource: NonEmptyString,
  description: z.string(),
  mimeType: z.string().optional(),
  outputSchema: z.record(z.string(), z.unknown()).nullable().optional(),
  payTo: NonEmptyString,
  maxTimeoutSeconds: z.number().int().positive(),
  asset: NonEmptyString,
  extra: Extra.nullable().optional(),
})
export type PaymentRequirementsV1 = z.infer<typeof PaymentRequirementsV1>

/** x402 v2 `PaymentRequired`: the body of a 402, carried base64-encoded in the `PAYMENT-REQUIRED` header. */
export const PaymentRequired = z.looseObject({
  x402Version: z.literal(2),
  error: z.string().optional(),
  resource: ResourceInfo,
  accepts: z.array(PaymentRequirements).min(1),
  extensions: z.record(z.string(), z.unknown()).optional(),
})
export type PaymentRequired = z.infer<typeof PaymentRequired>

/** x402 v1 `PaymentRequired`: the JSON body of a v1 402. */
export const PaymentRequiredV1 = z.looseObject({
  x402Version: z.literal(1),
  error: z.string().optional(),
  accepts: z.array(PaymentRequirementsV1).min(1),
})
export type PaymentRequiredV1 = z.infer<typeof PaymentRequiredV1>
