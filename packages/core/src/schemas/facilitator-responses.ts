import { z } from 'zod'

/** x402 `VerifyResponse`. An invalid payment is data (`isValid: false` + reason), never an HTTP error. */
export const VerifyResponse = z.looseObject({
  isValid: z.boolean(),
  invalidReason: z.string().optional(),
  invalidMessage: z.string().optional(),
  payer: z.string().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
})
export type VerifyResponse = z.infer<typeof VerifyResponse>

/**
 * x402 `SettleResponse`. `transaction` is `""` on failure, except `settlement_pending`, which
 * carries the broadcast transaction so the caller can re-settle (re-await) instead of re-paying.
 */
export const SettleResponse = z.looseObject({
  success: z.boolean(),
  errorReason: z.string().optional(),
  errorMessage: z.string().optional(),
  payer: z.string().optional(),
  transaction: z.string(),
  network: z.string(),
  amount: z.string().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
})
export type SettleResponse = z.infer<typeof SettleResponse>

/** One `(x402Version, scheme, network)` a facilitator can verify and settle. */
export const SupportedKind = z.looseObject({
  x402Version: z.number().int(),
  scheme: z.string(),
  network: z.string(),
  extra: z.record(z.string(), z.unknown()).optional(),
})
export type SupportedKind = z.infer<typeof SupportedKind>

/** x402 `GET /supported`: kinds, extension names, and the signer addresses per network pattern. */
export const SupportedResponse = z.looseObject({
  kinds: z.array(SupportedKind),
  extensions: z.array(z.string()).default([]),
  signers: z.record(z.string(), z.array(z.string())).default({}),
})
export type SupportedResponse = z.infer<typeof SupportedResponse>
