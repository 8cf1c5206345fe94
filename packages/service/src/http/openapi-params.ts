import { z } from '@hono/zod-openapi'

/** OpenAPI metadata of a query parameter: its name and a description. */
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
