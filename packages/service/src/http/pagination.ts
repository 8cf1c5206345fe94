import { z } from '@hono/zod-openapi'
import type { PageMeta } from './envelope.js'

/** Query parameters `page` (min 1, default 1) and `size` (1..100, default 10) of every list endpoint. */
export const PageQuery = z.object({
  page: z.coerce
    .number()
    .int()
    .min(1)
    .default(1)
    .openapi({ param: { name: 'page', in: 'query' }, example: 1, description: '1-based page number' }),
  size: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .openapi({ param: { name: 'size', in: 'query' }, example: 10, description: 'items per page, 1..100' }),
})
/** Query parameters `page` (min 1, default 1) and `size` (1..100, default 10) of every list endpoint. */
export type PageQuery = z.infer<typeof PageQuery>

/** An ISO 8601 date or date-time query value, parsed to a `Date`; anything else is a 400. */
export const IsoDate = z
  .string()
  .refine((value) => isIsoDate(value), {
    message: 'must be an ISO 8601 date or date-time in years 0001 to 9999',
  })
  .transform((value) => new Date(value))

/** Like {@link IsoDate}, but a bare date (`2026-01-31`) means the end of that UTC day (inclusive bound). */
export const IsoEndDate = z
  .string()
  .refine((value) => isIsoDate(value), {
    message: 'must be an ISO 8601 date or date-time in years 0001 to 9999',
  })
  .transform((value) => new Date(value.length === 10 ? Date.parse(value) + 86_399_999 : value))

/** Query parameters `startDate` / `endDate` (ISO 8601, inclusive bounds on `createdAt`). */
export const DateRangeQuery = z.object({
  startDate: IsoDate.optional().openapi({
    param: { name: 'startDate', in: 'query' },
    example: '2026-01-01T00:00:00Z',
    description: 'ISO 8601; only items created at or after this instant',
  }),
  endDate: IsoEndDate.optional().openapi({
    param: { name: 'endDate', in: 'query' },
    example: '2026-12-31T23:59:59Z',
    description: 'ISO 8601; only items created at or before this instant (a bare date covers the whole day)',
  }),
})

const isoPattern = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

// The instants a date filter may name: years 0001 to 9999 in UTC, what ISO 8601 writes without
// expansion and what PostgreSQL and JavaScript both store (docs/service.md "Pagination and dates").
const EARLIEST = new Date(0).setUTCFullYear(1, 0, 1)
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * Whether `value` is an ISO 8601 date (`2026-01-31`) or date-time that names a real instant between
 * 0001-01-01 and 9999-12-31 (UTC).
 */
export function isIsoDate(value: string): boolean {
  const match = isoPattern.exec(value)
  if (!match) {
    return false
  }
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  // `new Date('2026-02-31')` rolls over to March; a real date must exist in its month.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) {
    return false
  }
  const time = Date.parse(value)
  return time >= EARLIEST && time <= LATEST
}

/** Row offset of a page (`(page - 1) * size`). */
export function toOffset(query: PageQuery): number {
  return (query.page - 1) * query.size
}

/** Builds the `meta` block of a list response from the page query and the matching total. */
export function createPageMeta(query: PageQuery, total: number): PageMeta {
  return { page: query.page, size: query.size, total, totalPages: Math.ceil(total / query.size) }
}
