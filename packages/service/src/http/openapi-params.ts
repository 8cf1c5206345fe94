import { z } from '@hono/zod-openapi'

/** OpenAPI metadata of a query parameter: `.openapi(queryParam('status', 'what it filters'))`. */
export function queryParam(name: string, description: string) {
  return { param: { name, in: 'query' as const }, description }
}

/** The `{id}` path parameter of the single-resource routes (1-100 characters). */
export const IdPathParams = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' } }),
})
/** A non-empty string parameter of at most `max` characters (ids, references, hashes, search text). */
export function textParam(max = 200) {
  return z.string().min(1).max(max)
}
