import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { toDecimalField } from '../http/decimal-field.js'
import { createEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import { fxCurrencies } from '../rails/fx/sandbox-fx-table.js'
import { requireSandboxControls } from './require-sandbox-controls.js'

const rateString = toDecimalField('1550.25').refine(
  (value) => !/^[0.]+$/.test(value),
  'must be greater than zero',
)

/** Body of PUT /sandbox/fx-rates: mid rates against USD (either direction) with optional spreads. */
export const SandboxFxRatesBody = z
  .object({
    rates: z
      .array(
        z
          .object({
            from: z.enum(fxCurrencies),
            to: z.enum(fxCurrencies),
            rate: rateString.describe('mid rate: `to` units per `from` unit'),
            spreadBps: z
              .number()
              .int()
              .min(0)
              .max(1000)
              .optional()
              .describe("house spread on this currency's side, basis points (default: unchanged)"),
          })
          .refine((r) => (r.from === 'USD') !== (r.to === 'USD'), {
            message: 'exactly one of from and to must be USD',
            path: ['from'],
          }),
      )
      .min(1)
      .max(20),
  })
  .openapi('SandboxFxRatesBody')

const SwapRate = z
  .object({
    fromCurrency: z.string(),
    toCurrency: z.string(),
    rate: z.string().describe('house rate, 8 decimals'),
    timestamp: z.string().datetime(),
  })
  .openapi('SandboxSwapRate')

const fxRatesRoute = createRoute({
  method: 'put',
  path: '/sandbox/fx-rates',
  tags: ['Sandbox'],
  security: [{ ApiKey: [] }],
  summary: 'Set sandbox FX mid rates against USD (sandbox keys only; 404 for live keys)',
  description:
    'Rates persist in the database and apply to every sandbox merchant and process. Cross rates go through USD; see docs/rails-fiat.md.',
  request: { body: { required: true, content: { 'application/json': { schema: SandboxFxRatesBody } } } },
  responses: {
    200: {
      description: 'The house rates of the pairs set, both directions',
      content: { 'application/json': { schema: toEnvelopeSchema(z.array(SwapRate)) } },
    },
    ...toErrorResponses(400, 401, 404, 413, 429),
  },
})

/** PUT /sandbox/fx-rates: steers the sandbox FX table. */
export function createSandboxFxRateRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  return app.openapi(fxRatesRoute, async (c) => {
    const body = c.req.valid('json')
    const controls = requireSandboxControls(deps)
    const rates = await controls.setFxRates(
      body.rates.map((r) => ({
        from: r.from,
        to: r.to,
        rate: r.rate,
        ...(r.spreadBps === undefined ? {} : { spreadBps: r.spreadBps }),
      })),
    )
    const data = rates.map((r) => ({
      fromCurrency: r.from,
      toCurrency: r.to,
      rate: r.rate,
      timestamp: r.at.toISOString(),
    }))
    return c.json(createEnvelope(data, 'Rates set'), 200)
  })
}
