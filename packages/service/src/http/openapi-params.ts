import { z } from '@hono/zod-openapi'

/** OpenAPI metadata of a query parameter: `.openapi(queryParam('status', 'what it filters'))`. */
export function queryParam(name: string, description: string) {
  return { param: { name, in: 'query' as const }, description }
}

/** A non-empty string parameter of at most `max` characters (ids, references, hashes, search text). */
export function textParam(max = 200) {
  return z.string().min(1).max(max)
}
