import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { toDecimalField } from '../http/decimal-field.js'
import {
  createEnvelope,
  createListEnvelope,
  ErrorEnvelope,
  toEnvelopeSchema,
  toErrorResponses,
  toListEnvelopeSchema,
} from '../http/envelope.js'
import { IdPathParams, queryParam } from '../http/openapi-params.js'
import { createPageMeta, DateRangeQuery, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { chainNames } from '../reference/chains.js'
import { CrossBorderQuote, createCrossBorderQuote } from './create-cross-border-quote.js'
import { createPayout } from './create-payout.js'
import { findPayout, listPayouts } from './list-payouts.js'
import { Payout, payoutStatuses, toPayoutResponse } from './payout.js'
import { submitPayout } from './submit-payout.js'

const tags = ['Payouts']
const security = [{ ApiKey: [] }]
// Any printable text: 1-100 characters (code points), none a control character (C0, DEL, C1), a line
// or paragraph separator or a bidirectional override, and no space at either end (docs/payouts.md).
const printableReference = /^(?!\s)[^\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]{1,100}(?<!\s)$/u
const referenceRule =
  '1-100 printable characters (no control characters, no bidirectional overrides, no space at either end)'

/** Filters of GET /payouts (the spec's, plus startDate/endDate). */
export const PayoutsQuery = PageQuery.extend({
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi(queryParam('search', 'exact payout id, reference (ours or yours) or tx hash')),
  status: z.enum(payoutStatuses).optional().openapi(queryParam('status', 'payout status')),
  recipientId: z.string().min(1).max(100).optional().openapi(queryParam('recipientId', 'recipient id')),
  method: z.enum(['crypto', 'fiat']).optional().openapi(queryParam('method', 'crypto or fiat')),
  currency: z
    .enum(['NGN', 'USDT', 'USDC', 'KES', 'ZAR', 'GHS'])
    .optional()
    .openapi(queryParam('currency', 'balance currency debited or currency received')),
  chain: z
    .enum(chainNames)
    .optional()
    .openapi(queryParam('chain', 'crypto payouts on this chain (excludes fiat payouts)')),
}).extend(DateRangeQuery.shape)

/** Body of POST /payouts. */
export const CreatePayoutBody = z
  .object({
    currency: z
      .enum(['NGN', 'USDT', 'USDC', 'KES', 'GHS'])
      .describe('what the recipient receives: NGN (bank), USDT/USDC (crypto), KES/GHS (cross-border)'),
    recipientId: z.string().min(1).max(100),
    sourceCurrency: z
      .enum(['USDT', 'USDC'])
      .optional()
      .describe('cross-border only: the stablecoin balance to debit'),
    quoteId: z.string().min(1).max(100).optional().describe('cross-border only: pay exactly this quote'),
    amount: toDecimalField()
      .optional()
      .describe('in `currency`, what the recipient receives; not needed with quoteId'),
    narration: z.string().max(255).optional(),
    reference: z
      .string()
      .regex(printableReference, referenceRule)
      .optional()
      .describe(`your idempotency reference, permanent; generated when omitted; ${referenceRule}`),
    webhookUrl: z
      .string()
      .url()
      .max(2048)
      .optional()
      .describe('HTTPS; replaces your webhook URL for this payout'),
  })
  .openapi('CreatePayoutBody')

/** Body of POST /payouts/cross-border/quote. */
export const CrossBorderQuoteBody = z
  .object({
    currency: z.enum(['KES', 'GHS']),
    sourceCurrency: z.enum(['USDT', 'USDC']),
    sourceAmount: toDecimalField(),
  })
  .openapi('CrossBorderQuoteBody')

const FeeMap = z.record(z.string(), z.record(z.string(), z.string()))

/** The fee table of GET /payouts/fees. */
export const PayoutFees = z
  .object({
    fiat: FeeMap.describe('currency -> payment type (BankTransfer) -> fee in that currency'),
    crossBorder: FeeMap.describe('KES/GHS -> MobileMoney -> fee in the source stablecoin'),
    crypto: FeeMap.describe('asset -> chain -> fee in that asset'),
  })
  .openapi('PayoutFees')

const listRoute = createRoute({
  method: 'get',
  path: '/payouts',
  tags,
  security,
  summary: 'List payouts, newest first',
  request: { query: PayoutsQuery },
  responses: {
    200: {
      description: 'A page of payouts',
      content: { 'application/json': { schema: toListEnvelopeSchema(Payout) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const createPayoutRoute = createRoute({
  method: 'post',
  path: '/payouts',
  tags,
  security,
  summary: 'Pay out to a saved recipient',
  description:
    'Reserves amount + fee from the balance and hands the payout to its rail; answers with the payout as it stands (`processing` once handed over). `reference` is a permanent idempotency key: the same fields return the same payout (header `Idempotent-Replayed: true`), other fields are 409 `duplicate_reference`. API-key requests never need a one-time code. Errors: 400 `validation_error`, `insufficient_balance`, `daily_limit_exceeded`, `quote_expired`, `quote_already_used`, `unsupported_asset_chain`; 403 `forbidden` (cross-border for unverified merchants); 404 `recipient_not_found`.',
  request: { body: { required: true, content: { 'application/json': { schema: CreatePayoutBody } } } },
  responses: {
    201: { description: 'The payout', content: { 'application/json': { schema: toEnvelopeSchema(Payout) } } },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429, 503),
    500: {
      description:
        'Payout processing failed (`payout_failed`): the rail refused the payout. The failed payout, its reserved amount released, is in `data`, and `GET /payouts/{id}` shows it.',
      content: { 'application/json': { schema: ErrorEnvelope.extend({ data: Payout }) } },
    },
  },
})

const getRoute = createRoute({
  method: 'get',
  path: '/payouts/{id}',
  tags,
  security,
  summary: 'One payout',
  request: {
    params: IdPathParams,
  },
  responses: {
    200: { description: 'The payout', content: { 'application/json': { schema: toEnvelopeSchema(Payout) } } },
    ...toErrorResponses(401, 404, 429),
  },
})

const feesRoute = createRoute({
  method: 'get',
  path: '/payouts/fees',
  tags,
  security,
  summary: 'Payout fees (flat, per payout)',
  responses: {
    200: {
      description: 'The fee table',
      content: { 'application/json': { schema: toEnvelopeSchema(PayoutFees) } },
    },
    ...toErrorResponses(401, 429),
  },
})

const quoteRoute = createRoute({
  method: 'post',
  path: '/payouts/cross-border/quote',
  tags,
  security,
  summary: 'Price a KES/GHS payout funded from a stablecoin (valid two minutes)',
  description:
    'The one response without envelope. Verified businesses only (403 `forbidden`). targetAmount = sourceAmount × rate, computed exactly and rounded down to the target currency scale.',
  request: { body: { required: true, content: { 'application/json': { schema: CrossBorderQuoteBody } } } },
  responses: {
    200: {
      description: 'The quote (no envelope)',
      content: { 'application/json': { schema: CrossBorderQuote } },
    },
    403: {
      description: 'The merchant is not verified (`forbidden`)',
      content: {
        'application/json': { schema: toErrorResponses(400)[400].content['application/json'].schema },
      },
    },
    ...toErrorResponses(400, 401, 409, 413, 422, 429, 503),
  },
})

/** Routes of payouts, their fees and cross-border quotes. */
export function createPayoutRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(feesRoute, (c) =>
      c.json(createEnvelope(deps.settings.payouts.fees, 'Payout fees retrieved'), 200),
    )
    .openapi(listRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listPayouts(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(
          items.map((row) => toPayoutResponse(row, format)),
          createPageMeta(query, total),
          'Payouts retrieved',
        ),
        200,
      )
    })
    .openapi(createPayoutRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const request = c.req.valid('json')
      if (request.webhookUrl !== undefined) {
        assertWebhookUrl(request.webhookUrl, environment === 'test' && deps.settings.allowLoopbackWebhooks)
      }
      const { payout, created } = await createPayout(deps, { merchantId, environment, format, request })
      let current = payout
      if (created) {
        // The payout is committed; a provider problem now is the payout's outcome, never the request's.
        current = await submitPayout(deps, { payoutId: payout.id })
          .catch((error: unknown) => {
            c.get('logger').error(
              { err: error, payoutId: payout.id },
              'payout submission failed; the job retries',
            )
            return undefined
          })
          .then(
            async (row) =>
              row ?? (await findPayout(deps, { merchantId, environment, id: payout.id })) ?? payout,
          )
      }
      const response = toPayoutResponse(current, format)
      if (current.status === 'failed') {
        // The spec's 500 "payout processing failed"; a replay of the failed payout answers the same.
        throw new AppError('payout_failed', {
          message: `Payout processing failed: ${current.failure_reason ?? 'the rail refused the payout'}`,
          context: { data: response, ...(created ? {} : { headers: { 'Idempotent-Replayed': 'true' } }) },
        })
      }
      return c.json(
        createEnvelope(response, created ? 'Payout initiated' : 'Payout already exists'),
        201,
        created ? {} : { 'Idempotent-Replayed': 'true' },
      )
    })
    .openapi(quoteRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      return c.json(await createCrossBorderQuote(deps, { merchantId, environment, ...body }), 200)
    })
    .openapi(getRoute, async (c) => {
      const { merchantId, environment, format } = c.get('auth')
      const { id } = c.req.valid('param')
      const payout = await findPayout(deps, { merchantId, environment, id })
      if (!payout) {
        throw new AppError('not_found', { message: `Payout ${id} not found`, context: { param: 'id' } })
      }
      return c.json(createEnvelope(toPayoutResponse(payout, format), 'Payout retrieved'), 200)
    })
}

// HTTPS only; plain http to a loopback host only where the sandbox allows it (docs/payouts.md).
function assertWebhookUrl(value: string, allowLoopback: boolean): void {
  const url = new URL(value)
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  if (url.protocol === 'https:' || (allowLoopback && url.protocol === 'http:' && loopback)) {
    return
  }
  const message = 'webhookUrl must be an https URL'
  throw new AppError('validation_error', {
    message,
    context: { param: 'webhookUrl', details: [{ field: 'body.webhookUrl', message, code: 'invalid_url' }] },
  })
}
