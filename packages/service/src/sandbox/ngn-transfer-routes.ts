import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { formatAtomicAmount, parseDecimalAmount } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { createEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'
import { toAmountSchema } from './amount-schema.js'
import { requireSandboxControls } from './require-sandbox-controls.js'

const nuban = z.string().regex(/^\d{10}$/, 'must be a 10-digit account number')

/** Body of POST /sandbox/ngn-transfers: the virtual account, the amount and optional payer details. */
export const SandboxNgnTransferBody = z
  .object({
    accountNumber: nuban.describe('the NGN virtual account number that receives the transfer'),
    amount: toAmountSchema(ledgerCurrencies.NGN).describe('NGN amount, decimal string'),
    reference: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('provider session reference; a repeated reference is received (and delivered) once'),
    payer: z
      .object({
        accountName: z.string().min(1).max(100).optional(),
        accountNumber: nuban.optional(),
        bankCode: z.string().min(3).max(6).optional().describe('a code of GET /recipients/banks'),
      })
      .optional(),
  })
  .openapi('SandboxNgnTransferBody')

const SandboxNgnTransfer = z
  .object({
    id: z.string(),
    accountNumber: z.string(),
    accountReference: z.string(),
    amount: z.string(),
    currency: z.literal('NGN'),
    reference: z.string(),
    payer: z.object({
      accountName: z.string(),
      accountNumber: z.string(),
      bankName: z.string(),
      bankCode: z.string(),
    }),
    receivedAt: z.string().datetime(),
    delivered: z
      .boolean()
      .describe('false when the reference had been received before (nothing delivered again)'),
  })
  .openapi('SandboxNgnTransfer')

const ngnTransferRoute = createRoute({
  method: 'post',
  path: '/sandbox/ngn-transfers',
  tags: ['Sandbox'],
  security: [{ ApiKey: [] }],
  summary:
    'Simulate an inbound NGN bank transfer into a virtual account (sandbox keys only; 404 for live keys)',
  description:
    'Accepts `Idempotency-Key`. The sandbox provider records the transfer once per `reference` and delivers it to the deposit flow in the same transaction.',
  request: {
    body: { required: true, content: { 'application/json': { schema: SandboxNgnTransferBody } } },
  },
  responses: {
    200: {
      description: 'The received transfer',
      content: { 'application/json': { schema: toEnvelopeSchema(SandboxNgnTransfer) } },
    },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

/** POST /sandbox/ngn-transfers: an inbound NGN transfer into one of the caller's virtual accounts. */
export function createSandboxNgnTransferRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  return app.openapi(ngnTransferRoute, async (c) => {
    const { merchantId, environment } = c.get('auth')
    const body = c.req.valid('json')
    const controls = requireSandboxControls(deps)
    const scale = ledgerCurrencies.NGN
    const { transfer, accountNumber, delivered } = await controls.simulateInboundTransfer({
      accountNumber: body.accountNumber,
      amount: parseDecimalAmount(body.amount, scale),
      merchantId,
      environment,
      ...(body.reference === undefined ? {} : { reference: body.reference }),
      ...(body.payer === undefined ? {} : { payer: body.payer }),
    })
    const data = {
      id: transfer.id,
      accountNumber,
      accountReference: transfer.accountReference,
      amount: formatAtomicAmount(transfer.amount, scale),
      currency: transfer.currency,
      reference: transfer.reference,
      payer: transfer.payer,
      receivedAt: transfer.receivedAt.toISOString(),
      delivered,
    }
    return c.json(createEnvelope(data, delivered ? 'Transfer received' : 'Transfer already received'), 200)
  })
}
