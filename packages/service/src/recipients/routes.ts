import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import {
  createEnvelope,
  createListEnvelope,
  toEnvelopeSchema,
  toErrorResponses,
  toListEnvelopeSchema,
} from '../http/envelope.js'
import { IdPathParams, queryParam } from '../http/openapi-params.js'
import { createPageMeta, PageQuery } from '../http/pagination.js'
import { validationHook } from '../http/validation-hook.js'
import { createRecipient } from './create-recipient.js'
import { findRecipient } from './get-recipient.js'
import { listRecipients } from './list-recipients.js'
import {
  maskDetails,
  Recipient,
  RecipientDetails,
  RecipientDetailsInput,
  recipientTypes,
  toRecipientResponse,
} from './recipient.js'
import { resolveRecipient } from './resolve-recipient.js'
import { deleteRecipient, updateRecipient } from './update-recipient.js'

const tags = ['Recipients']
const security = [{ ApiKey: [] }]

/** Filters of GET /recipients (names of ours; docs/payouts.md "Recipients"). */
export const RecipientsQuery = PageQuery.extend({
  type: z.enum(recipientTypes).optional().openapi(queryParam('type', 'recipient type; omit for all')),
  scope: z
    .enum(['address_book', 'temporary', 'all'])
    .default('address_book')
    .openapi(queryParam('scope', 'address_book (default), temporary (one-time recipients) or all')),
  customerId: z.string().min(1).max(100).optional().openapi(queryParam('customerId', 'linked customer id')),
  search: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .openapi(
      queryParam('search', 'case-insensitive text in the holder name, bank or provider (or chain), or label'),
    ),
})

const Notes = z.string().max(1000).describe('free text; an empty string clears it')

/** Body of POST /recipients. */
export const CreateRecipientBody = z
  .intersection(
    RecipientDetailsInput,
    z.object({
      label: z.string().trim().min(1).max(100).optional().describe('default: holder name and institution'),
      isTemporary: z.boolean().default(false).describe('true = one-time recipient, not in the address book'),
      notes: Notes.optional(),
      customerId: z.string().min(1).max(100).optional().describe('link the recipient to a customer'),
    }),
  )
  .openapi('CreateRecipientBody')

/** Body of PATCH /recipients/{id}: at least one field. */
export const UpdateRecipientBody = z
  .object({
    label: z.string().trim().min(1).max(100).optional(),
    isDefault: z
      .boolean()
      .optional()
      .describe('true makes it the default of its type (the previous one stops being it)'),
    isTrusted: z
      .boolean()
      .optional()
      .describe('dashboard payouts to trusted recipients need no one-time code'),
    notes: Notes.optional(),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give at least one of label, isDefault, isTrusted, notes',
  })
  .openapi('UpdateRecipientBody')

/** Result of POST /recipients/validate. */
export const RecipientValidation = z
  .object({
    valid: z.boolean().describe('false only for a bank account held under another name than the merchant'),
    type: z.enum(recipientTypes),
    resolved: RecipientDetails,
    reason: z.string().nullable().describe('why valid is false, else null'),
  })
  .openapi('RecipientValidation')

const listRoute = createRoute({
  method: 'get',
  path: '/recipients',
  tags,
  security,
  summary: 'List recipients (the address book by default), newest first',
  request: { query: RecipientsQuery },
  responses: {
    200: {
      description: 'A page of recipients',
      content: { 'application/json': { schema: toListEnvelopeSchema(Recipient) } },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

const createRecipientRoute = createRoute({
  method: 'post',
  path: '/recipients',
  tags,
  security,
  summary: 'Save a recipient (returns the existing one for the same destination)',
  description:
    'Crypto addresses are checked per chain; NGN bank accounts are resolved by name enquiry and must be held under the merchant name or business name; mobile money is resolved to its corridor and provider. 201 for a new recipient, 200 when the same destination was already saved. Accepts `Idempotency-Key`.',
  request: { body: { required: true, content: { 'application/json': { schema: CreateRecipientBody } } } },
  responses: {
    200: {
      description: 'The recipient already saved for this destination',
      content: { 'application/json': { schema: toEnvelopeSchema(Recipient) } },
    },
    201: {
      description: 'The new recipient',
      content: { 'application/json': { schema: toEnvelopeSchema(Recipient) } },
    },
    ...toErrorResponses(400, 401, 409, 413, 422, 429, 503),
  },
})

const validateRoute = createRoute({
  method: 'post',
  path: '/recipients/validate',
  tags,
  security,
  summary: 'Check and resolve recipient details without saving them',
  request: { body: { required: true, content: { 'application/json': { schema: RecipientDetailsInput } } } },
  responses: {
    200: {
      description: 'Resolved details (account numbers masked)',
      content: { 'application/json': { schema: toEnvelopeSchema(RecipientValidation) } },
    },
    ...toErrorResponses(400, 401, 413, 429, 503),
  },
})

const getRoute = createRoute({
  method: 'get',
  path: '/recipients/{id}',
  tags,
  security,
  summary: 'One recipient',
  request: { params: IdPathParams },
  responses: {
    200: {
      description: 'The recipient',
      content: { 'application/json': { schema: toEnvelopeSchema(Recipient) } },
    },
    ...toErrorResponses(401, 404, 429),
  },
})

const updateRoute = createRoute({
  method: 'patch',
  path: '/recipients/{id}',
  tags,
  security,
  summary: 'Change the label, default or trusted flag, or notes of a recipient',
  request: {
    params: IdPathParams,
    body: { required: true, content: { 'application/json': { schema: UpdateRecipientBody } } },
  },
  responses: {
    200: {
      description: 'The recipient',
      content: { 'application/json': { schema: toEnvelopeSchema(Recipient) } },
    },
    ...toErrorResponses(400, 401, 404, 409, 413, 422, 429),
  },
})

const deleteRoute = createRoute({
  method: 'delete',
  path: '/recipients/{id}',
  tags,
  security,
  summary: 'Remove a recipient (payouts already made keep their copy of it)',
  request: { params: IdPathParams },
  responses: {
    200: {
      description: 'Removed',
      content: { 'application/json': { schema: toEnvelopeSchema(z.object({ success: z.literal(true) })) } },
    },
    ...toErrorResponses(401, 404, 429),
  },
})

/** Routes of the recipients (address book). GET /recipients/banks and /chains live in reference/. */
export function createRecipientRoutes(deps: Deps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const query = c.req.valid('query')
      const { items, total } = await listRecipients(deps, { merchantId, environment, ...query })
      return c.json(
        createListEnvelope(
          items.map(toRecipientResponse),
          createPageMeta(query, total),
          'Recipients retrieved',
        ),
        200,
      )
    })
    .openapi(createRecipientRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      const { recipient, created } = await createRecipient(deps, {
        merchantId,
        environment,
        recipient: { type: body.type, details: body.details } as typeof body & RecipientDetailsInput,
        label: body.label,
        isTemporary: body.isTemporary,
        notes: body.notes,
        customerId: body.customerId,
      })
      const data = toRecipientResponse(recipient)
      return created
        ? c.json(createEnvelope(data, 'Recipient created'), 201)
        : c.json(createEnvelope(data, 'Recipient already saved'), 200)
    })
    .openapi(validateRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const body = c.req.valid('json')
      const resolved = await resolveRecipient(deps, { merchantId, environment, recipient: body })
      return c.json(
        createEnvelope(
          {
            valid: resolved.nameMatches,
            type: resolved.type,
            resolved: maskDetails(resolved.details),
            reason: resolved.nameMatches
              ? null
              : 'The account holder matches neither the merchant name nor its business name',
          },
          'Recipient details checked',
        ),
        200,
      )
    })
    .openapi(getRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const recipient = await findRecipient(deps, { merchantId, environment, id })
      if (!recipient) {
        throw new AppError('not_found', { message: `Recipient ${id} not found`, context: { param: 'id' } })
      }
      return c.json(createEnvelope(toRecipientResponse(recipient), 'Recipient retrieved'), 200)
    })
    .openapi(updateRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      const changes = c.req.valid('json')
      const recipient = await updateRecipient(deps, { merchantId, environment, id, changes })
      return c.json(createEnvelope(toRecipientResponse(recipient), 'Recipient updated'), 200)
    })
    .openapi(deleteRoute, async (c) => {
      const { merchantId, environment } = c.get('auth')
      const { id } = c.req.valid('param')
      await deleteRecipient(deps, { merchantId, environment, id })
      return c.json(createEnvelope({ success: true as const }, 'Recipient deleted'), 200)
    })
}
