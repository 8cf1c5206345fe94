import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import { Balance } from '../balances/schemas.js'
import { toBalanceResponse } from '../balances/to-balance-response.js'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { toDecimalField } from '../http/decimal-field.js'
import { createEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import { createCryptoPaymentRoutes } from './crypto-payment-routes.js'
import { fundBalance, sandboxCurrencyScales } from './fund-sandbox-merchant.js'
import { createSandboxFxRateRoutes } from './fx-rate-routes.js'
import { createSandboxNgnTransferRoutes } from './ngn-transfer-routes.js'
import { createSandboxProviderCallbackRoutes } from './provider-callback-routes.js'

/** Body of POST /sandbox/fund: a currency and a positive decimal amount within the currency's scale. */
export const SandboxFundBody = z
  .object({
    currency: z.enum(['USDT', 'USDC', 'NGN']).describe('balance currency to credit'),
    amount: toDecimalField().describe('decimal string'),
  })
  .superRefine((body, ctx) => {
    const [, fraction = ''] = body.amount.split('.')
    if (fraction.length > sandboxCurrencyScales[body.currency]) {
      ctx.addIssue({
        code: 'custom',
        path: ['amount'],
        message: `at most ${sandboxCurrencyScales[body.currency]} decimals for ${body.currency}`,
      })
    } else if (/^[0.]+$/.test(body.amount)) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'must be greater than zero' })
    }
  })
  .openapi('SandboxFundBody')

const fundRoute = createRoute({
  method: 'post',
  path: '/sandbox/fund',
  tags: ['Sandbox'],
  security: [{ ApiKey: [] }],
  summary: 'Credit the caller balance (sandbox keys only; 404 for live keys)',
  description: 'Accepts `Idempotency-Key`. Posts a sandbox funding transfer through the ledger.',
  request: { body: { required: true, content: { 'application/json': { schema: SandboxFundBody } } } },
  responses: {
    200: {
      description: 'The balance after funding',
      content: { 'application/json': { schema: toEnvelopeSchema(Balance) } },
    },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

/** Sandbox-only routes: they answer 404 to `sk_live_` keys, as if they did not exist. */
export function createSandboxRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  // Runs before the body validator so a live key never learns the route's schema.
  app.use('/sandbox/*', async (c, next) => {
    if (c.get('auth').environment !== 'test') {
      throw new AppError('not_found', { message: `No route for ${c.req.method} ${c.req.path}` })
    }
    await next()
  })
  app.route('/', createSandboxNgnTransferRoutes(deps))
  app.route('/', createSandboxProviderCallbackRoutes(deps))
  app.route('/', createSandboxFxRateRoutes(deps))
  app.route('/', createCryptoPaymentRoutes(deps))
  return app.openapi(fundRoute, async (c) => {
    const { merchantId } = c.get('auth')
    const body = c.req.valid('json')
    const balance = await fundBalance(deps, { merchantId, currency: body.currency, amount: body.amount })
    return c.json(createEnvelope(toBalanceResponse(balance), 'Balance funded'), 200)
  })
}
