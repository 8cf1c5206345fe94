import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError, formatAtomicAmount, parseDecimalAmount } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { toDecimalField } from '../http/decimal-field.js'
import { createEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import type { IncomingTransfer } from '../rails/types.js'
import { chainNames } from '../reference/chains.js'

/** Body of POST /sandbox/crypto-payments: a payment to one of the caller's deposit addresses on a chain without a node. */
export const SandboxCryptoPaymentBody = z
  .object({
    chain: z
      .enum(chainNames)
      .describe('chain without a local node (bitcoin, tron, dogecoin, ethereum, polygon, celo)'),
    asset: z.string().min(1).max(16).describe('asset symbol of the chain (USDT, USDC, BTC, ...)'),
    address: z.string().min(1).max(128).describe('a deposit address of the caller on `chain`'),
    amount: toDecimalField('12.5').describe('decimal string in whole units, at most the asset decimals'),
    confirmations: z
      .number()
      .int()
      .min(0)
      .max(1_000)
      .optional()
      .describe('default: the chain count (confirmed at once)'),
    txHash: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('repeat a txHash with more confirmations to confirm a payment reported as seen'),
  })
  .openapi('SandboxCryptoPaymentBody')

/** A recorded (simulated) incoming transfer. */
export const SandboxCryptoPayment = z
  .object({
    id: z.string(),
    chain: z.string(),
    networkId: z.string(),
    asset: z.string(),
    amount: z.string().describe('decimal string at the asset scale'),
    address: z.string(),
    txHash: z.string(),
    confirmations: z.number().int(),
    status: z.enum(['seen', 'confirmed', 'reverted']),
    seenAt: z.string(),
    confirmedAt: z.string().nullable(),
  })
  .openapi('SandboxCryptoPayment')

const route = createRoute({
  method: 'post',
  path: '/sandbox/crypto-payments',
  tags: ['Sandbox'],
  security: [{ ApiKey: [] }],
  summary: 'Simulate a crypto payment on a chain without a local node (sandbox keys only; 404 for live keys)',
  description:
    'Records the payment through the same path as the chain watchers: seen, then confirmed once `confirmations` reaches the chain count. See docs/rails.md.',
  request: {
    body: { required: true, content: { 'application/json': { schema: SandboxCryptoPaymentBody } } },
  },
  responses: {
    200: {
      description: 'The recorded payment',
      content: { 'application/json': { schema: toEnvelopeSchema(SandboxCryptoPayment) } },
    },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

function toPayment(transfer: IncomingTransfer): z.infer<typeof SandboxCryptoPayment> {
  return {
    id: transfer.id,
    chain: transfer.chain,
    networkId: transfer.network,
    asset: transfer.asset,
    amount: formatAtomicAmount(transfer.amount, transfer.decimals),
    address: transfer.toAddress,
    txHash: transfer.txHash,
    confirmations: transfer.confirmations,
    status: transfer.status,
    seenAt: transfer.seenAt.toISOString(),
    confirmedAt: transfer.confirmedAt?.toISOString() ?? null,
  }
}

/** POST /sandbox/crypto-payments; mounted behind the sandbox routes' live-key 404 (sandbox/routes.ts). */
export function createCryptoPaymentRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  return app.openapi(route, async (c) => {
    const { merchantId } = c.get('auth')
    const body = c.req.valid('json')
    const { rails } = deps
    const asset = rails.chains.findAsset('test', body.chain, body.asset)
    if (!asset) {
      throw new AppError('unknown_asset', {
        context: { network: body.chain, asset: body.asset },
        message: `${body.asset} is not an asset of ${body.chain}`,
      })
    }
    const address = await rails.addresses.find(deps.db, {
      environment: 'test',
      chain: body.chain,
      address: body.address,
    })
    // Another merchant's address is as unknown as a missing one.
    if (!address || address.merchantId !== merchantId) {
      throw new AppError('not_found', {
        context: { param: 'address' },
        message: `No deposit address ${body.address} on ${body.chain}`,
      })
    }
    const transfer = await rails.incoming.simulate({
      environment: 'test',
      chain: body.chain,
      asset: asset.symbol,
      address: address.address,
      amount: parseDecimalAmount(body.amount, asset.decimals),
      confirmations: body.confirmations ?? rails.chains.get('test', body.chain)?.confirmations ?? 1,
      ...(body.txHash === undefined ? {} : { txHash: body.txHash }),
    })
    return c.json(createEnvelope(toPayment(transfer), 'Payment recorded'), 200)
  })
}
