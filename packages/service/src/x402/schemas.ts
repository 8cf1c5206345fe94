import { z } from '@hono/zod-openapi'
import { chainNames } from '../reference/chains.js'

const HumanAmount = z
  .string()
  .regex(/^(0|[1-9]\d{0,30})(\.\d{1,18})?$/, 'must be a decimal string such as "0.01"')

/** Body of POST /x402/requirements (spec "x402 agent payments"; `x402Version: 2` asks for v2 requirements). */
export const RequirementsBody = z
  .object({
    chain: z.enum(chainNames).describe('blockchain'),
    asset: z.string().min(1).max(16).describe('asset symbol such as USDC or USDT'),
    amount: HumanAmount.describe('price in human units, e.g. "0.01"'),
    payTo: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('default: the merchant’s x402 address on the chain'),
    resource: z.string().max(500).optional(),
    description: z.string().max(255).optional(),
    mimeType: z.string().max(255).optional(),
    maxTimeoutSeconds: z.number().int().min(1).max(3600).optional(),
    x402Version: z
      .union([z.literal(1), z.literal(2)])
      .optional()
      .describe('1 (default, the spec’s fields) or 2'),
  })
  .openapi('X402RequirementsBody')
/** Body of POST /x402/requirements. */
export type RequirementsBody = z.infer<typeof RequirementsBody>

/** Body of POST /x402/verify and /x402/settle: an x402 facilitator request (v1 or v2). */
export const FacilitatorBody = z
  .object({
    x402Version: z.number().int().min(1).max(2),
    paymentPayload: z.record(z.string(), z.unknown()),
    paymentRequirements: z.record(z.string(), z.unknown()),
  })
  .openapi('X402FacilitatorBody')

/** Result of one verification check: passed, failed, or not reached because an earlier check failed. */
export const CheckResult = z.enum(['pass', 'fail', 'not_checked'])

/** Data of POST /x402/verify. */
export const VerifyData = z
  .object({
    isValid: z.boolean(),
    invalidReason: z.string().nullable(),
    payer: z.string().nullable(),
    chain: z.string(),
    asset: z.string(),
    payTo: z.string(),
    amount: z.string(),
    checks: z.object({ timestamp: CheckResult, nonce: CheckResult, balance: CheckResult }),
  })
  .openapi('X402Verification')

/** The x402 transaction resource (spec "x402 transaction"). */
export const X402Transaction = z
  .object({
    id: z.string(),
    txHash: z.string(),
    status: z.enum(['confirmed', 'pending', 'failed']),
    amlCheck: z.string(),
    errorReason: z.string().nullable(),
    network: z.string(),
    chain: z.string(),
    asset: z.string(),
    resource: z.string().nullable(),
    description: z.string().nullable(),
    payer: z.string().nullable(),
    payTo: z.string(),
    amount: z.string(),
    fee: z.string(),
    blockNumber: z
      .number()
      .nullable()
      .describe(
        'block (EVM) or slot (Solana) the transaction landed in, read from the chain node at settle; null while pending or where no node of the chain is configured',
      ),
    explorerUrl: z.string(),
    createdAt: z.string(),
  })
  .openapi('X402Transaction')
/** The x402 transaction resource. */
export type X402Transaction = z.infer<typeof X402Transaction>

const X402Extra = z
  .record(z.string(), z.unknown())
  .describe(
    'scheme-specific: the token’s EIP-712 `name` and `version`, `assetTransferMethod`, the Solana `feePayer`',
  )

/** One x402 v1 offer of POST /x402/requirements (the spec's `accepts` fields). */
export const X402OfferV1 = z
  .object({
    scheme: z.string().describe('`exact`'),
    network: z.string().describe('CAIP-2, e.g. `eip155:8453`'),
    maxAmountRequired: z.string().describe('atomic units'),
    resource: z.string(),
    description: z.string(),
    mimeType: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    asset: z.string().describe('token contract or mint'),
    extra: X402Extra.optional(),
  })
  .openapi('X402OfferV1')

/** One x402 v2 offer of POST /x402/requirements (`x402Version: 2`). */
export const X402OfferV2 = z
  .object({
    scheme: z.string().describe('`exact`'),
    network: z.string().describe('CAIP-2, e.g. `eip155:8453`'),
    amount: z.string().describe('atomic units'),
    asset: z.string().describe('token contract or mint'),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    extra: X402Extra.optional(),
  })
  .openapi('X402OfferV2')

/** Data of POST /x402/requirements: v1 offers by default, v2 ones (with `resource`) when asked. */
export const X402Requirements = z
  .object({
    x402Version: z.number(),
    chain: z.string(),
    asset: z.string(),
    amount: z.string().describe('the price in the asset’s units, e.g. "0.010000"'),
    resource: z
      .object({ url: z.string(), description: z.string().optional(), mimeType: z.string().optional() })
      .optional()
      .describe('v2 only'),
    accepts: z.array(z.union([X402OfferV1, X402OfferV2])),
  })
  .openapi('X402Requirements')

/** Data of GET /x402/supported. */
export const X402Supported = z
  .object({
    kinds: z.array(
      z.object({
        x402Version: z.number(),
        scheme: z.string(),
        network: z.string(),
        chain: z.string(),
        assets: z.array(z.string()),
        extra: X402Extra,
      }),
    ),
  })
  .openapi('X402Supported')
