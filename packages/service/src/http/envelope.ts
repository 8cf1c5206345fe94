import { z } from '@hono/zod-openapi'

/** Pagination block of list responses (spec "Conventions" 4). */
export const PageMeta = z
  .object({
    page: z.number().int().describe('1-based page number'),
    size: z.number().int().describe('items per page'),
    total: z.number().int().describe('items matching the query'),
    totalPages: z.number().int(),
  })
  .openapi('PageMeta')
/** Pagination block of list responses (spec "Conventions" 4). */
export type PageMeta = z.infer<typeof PageMeta>

/** Error envelope (docs/conventions.md): `success:false`, `data:null`, and a stable `error.code`. */
export const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    message: z.string(),
    data: z.null(),
    error: z.object({
      code: z.string().describe('stable snake_case error code (see docs/service.md)'),
      param: z.string().optional(),
      details: z.unknown().optional(),
    }),
  })
  .openapi('ErrorEnvelope')
/** Error envelope (docs/conventions.md): `success:false`, `data:null`, and a stable `error.code`. */
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>

/** Wraps a data schema in the success envelope `{ success, message, data }`. */
export function toEnvelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data })
}

/** Wraps an item schema in the list envelope `{ success, message, data: T[], meta }`. */
export function toListEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), message: z.string(), data: z.array(item), meta: PageMeta })
}

/** Builds a success envelope body. */
export function createEnvelope<T>(data: T, message = 'OK') {
  return { success: true as const, message, data }
}

/** Builds a list envelope body with its pagination meta. */
export function createListEnvelope<T>(data: T[], meta: PageMeta, message = 'OK') {
  return { success: true as const, message, data, meta }
}

const errorStatuses = {
  400: 'Invalid input (`validation_error`, `invalid_json`)',
  401: 'Missing, invalid or revoked API key (`unauthorized`)',
  404: 'Not found (`not_found`)',
  409: 'Idempotency key still in use (`idempotency_key_in_use`)',
  413: 'Body larger than the limit (`payload_too_large`)',
  422: 'Idempotency key reused with another body (`idempotency_key_reused`)',
  429: 'Rate limit exceeded (`rate_limited`)',
  502: 'The facilitator reported a settlement the chain does not show (`settlement_unverified`)',
  503: 'A node or provider did not answer (`provider_unavailable`)',
  500: 'Unexpected failure (`internal_error`); logged with the request id',
} as const

/** OpenAPI response entries of the error envelope for the given statuses. */
export function toErrorResponses<S extends keyof typeof errorStatuses>(...statuses: S[]) {
  // Any operation can fail unexpectedly: every one documents the 500 the runtime may answer.
  const entries = [...new Set<keyof typeof errorStatuses>([...statuses, 500])].map((status) => [
    status,
    { description: errorStatuses[status], content: { 'application/json': { schema: ErrorEnvelope } } },
  ])
  return Object.fromEntries(entries) as Record<
    S | 500,
    { description: string; content: { 'application/json': { schema: typeof ErrorEnvelope } } }
  >
}
