import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError, type FacilitatorClient } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { createEnvelope, ErrorEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import { chainNames } from '../reference/chains.js'
import { CheckResult } from '../x402/schemas.js'
import { agentCheckNames, settleAgentPayment, verifyAgentPayment } from './agent-payments.js'
import { AnyPaymentSession } from './schemas.js'

const tags = ['Agent payments']
const security = [{ ApiKey: [] }]
const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } })

const agentFields = {
  scheme: z.enum(['eip3009', 'permit2', 'solana']),
  chain: z.enum(chainNames),
  asset: z
    .string()
    .min(1)
    .max(16)
    .transform((value) => value.toUpperCase()),
  payload: z.record(z.string(), z.unknown()),
}

/** Body of POST /payments/agent/verify: the spec's `scheme, chain, asset, payload`, and optionally the session paid. */
export const AgentVerifyBody = z
  .object({
    sessionReference: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('the session paid: also checks its address and the amount still due (required for solana)'),
    ...agentFields,
  })
  .openapi('AgentVerifyBody')

/** Body of POST /payments/agent/settle (payload shapes in docs/sessions.md "Agent payments"). */
export const AgentPaymentBody = z
  .object({
    sessionReference: z.string().min(1).max(100),
    ...agentFields,
  })
  .openapi('AgentPaymentBody')

/** The verdict on an agent payment; a 400 `invalid_payment` carries it in `error.details`. */
export const AgentVerdict = z
  .object({
    valid: z.boolean(),
    reason: z.string().nullable(),
    payer: z.string().nullable(),
    amount: z.string(),
    checks: z.object(
      Object.fromEntries(agentCheckNames.map((name) => [name, CheckResult])) as Record<
        (typeof agentCheckNames)[number],
        typeof CheckResult
      >,
    ),
  })
  .openapi('AgentPaymentVerdict')

/** Data of POST /payments/agent/settle: the on-chain transaction and the session after it. */
export const AgentSettlement = z
  .object({
    transaction: z.object({
      txHash: z.string(),
      status: z.enum(['pending', 'confirmed']),
      payer: z.string().nullable(),
      chain: z.string(),
      asset: z.string(),
      amount: z.string(),
    }),
    session: AnyPaymentSession.nullable(),
  })
  .openapi('AgentSettlement')

const routes = {
  verify: createRoute({
    method: 'post',
    path: '/payments/agent/verify',
    tags,
    security,
    summary: "Check an agent's signed payment of a session without sending it",
    request: { body: { required: true, ...json(AgentVerifyBody) } },
    responses: {
      200: { description: 'The payment is valid', ...json(toEnvelopeSchema(AgentVerdict)) },
      ...toErrorResponses(401, 404, 413, 429, 503),
      400: {
        description:
          'Invalid payment (`invalid_payment`): the verdict with per-check results in `data` and `error.details`; or invalid input (`validation_error`, `unsupported_asset_chain`, `data: null`)',
        ...json(
          z.object({
            success: z.literal(false),
            message: z.string(),
            data: AgentVerdict.nullable(),
            error: ErrorEnvelope.shape.error,
          }),
        ),
      },
    },
  }),
  settle: createRoute({
    method: 'post',
    path: '/payments/agent/settle',
    tags,
    security,
    summary: "Settle an agent's signed payment of a session on-chain (the service pays the gas)",
    request: { body: { required: true, ...json(AgentPaymentBody) } },
    responses: {
      201: { description: 'Settled; the session as it is now', ...json(toEnvelopeSchema(AgentSettlement)) },
      ...toErrorResponses(400, 401, 404, 409, 413, 422, 429, 503),
    },
  }),
}

/**
 * The spec's "Agent payments on payment sessions" on the in-process x402 `facilitator`; without one
 * both routes answer 503 `provider_unavailable`.
 */
export function createAgentPaymentRoutes(deps: Deps, facilitator: FacilitatorClient | undefined) {
  const need = (): FacilitatorClient => {
    if (!facilitator) {
      throw new AppError('provider_unavailable', { message: 'No x402 facilitator is configured' })
    }
    return facilitator
  }
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(routes.verify, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const verdict = await verifyAgentPayment(deps, need(), {
        merchantId,
        environment,
        ...c.req.valid('json'),
      })
      if (!verdict.valid) {
        // Spec: 400 "with per-check results" (`valid`, `checks`): in `data`, where a client reads them.
        throw new AppError('invalid_payment', {
          message: `The payment is not valid: ${verdict.reason}`,
          context: { details: verdict, data: verdict },
        })
      }
      return c.json(createEnvelope(verdict, 'Payment is valid'), 200)
    })
    .openapi(routes.settle, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const data = await settleAgentPayment(deps, need(), {
        merchantId,
        environment,
        format,
        ...c.req.valid('json'),
      })
      return c.json(createEnvelope(data, 'Payment settled'), 201)
    })
}
