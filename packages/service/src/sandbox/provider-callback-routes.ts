import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { createEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import { requireSandboxControls } from './require-sandbox-controls.js'

/** Body of POST /sandbox/provider-callbacks/{transferId}: the outcome the provider reports. */
export const SandboxProviderCallbackBody = z
  .object({
    outcome: z.enum(['success', 'failed']).describe('what the provider reports for the transfer'),
    failureReason: z.string().min(1).max(200).optional().describe('reason of a failed transfer'),
  })
  .openapi('SandboxProviderCallbackBody')

const SandboxFiatTransfer = z
  .object({
    id: z.string().describe('our transfer id (the payout id), the provider idempotency key'),
    providerReference: z.string().nullable(),
    status: z.enum(['processing', 'success', 'failed']),
    failureReason: z.string().nullable(),
  })
  .openapi('SandboxFiatTransfer')

const callbackRoute = createRoute({
  method: 'post',
  path: '/sandbox/provider-callbacks/{transferId}',
  tags: ['Sandbox'],
  security: [{ ApiKey: [] }],
  summary: 'Fire the pending bank / mobile-money provider callback of a transfer (sandbox keys only)',
  description:
    'For transfers the sandbox holds in `processing` (account or phone number ending `1111`), or to report a result before the simulated callback. 409 `transfer_already_completed` once the callback was delivered.',
  request: {
    params: z.object({ transferId: z.string().min(1).max(100).describe('our transfer id (payout id)') }),
    body: { required: true, content: { 'application/json': { schema: SandboxProviderCallbackBody } } },
  },
  responses: {
    200: {
      description: 'The transfer after the callback',
      content: { 'application/json': { schema: toEnvelopeSchema(SandboxFiatTransfer) } },
    },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

/** POST /sandbox/provider-callbacks/{transferId}: delivers a fiat provider callback now. */
export function createSandboxProviderCallbackRoutes(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  return app.openapi(callbackRoute, async (c) => {
    const { merchantId } = c.get('auth')
    const { transferId } = c.req.valid('param')
    const body = c.req.valid('json')
    const controls = requireSandboxControls(deps)
    const transfer = await controls.completeFiatTransfer({
      id: transferId,
      outcome: body.outcome,
      merchantId,
      ...(body.failureReason === undefined ? {} : { failureReason: body.failureReason }),
    })
    return c.json(createEnvelope(transfer, 'Callback delivered'), 200)
  })
}
