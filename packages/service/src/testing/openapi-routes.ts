import type { Harness } from './harness.js'

/** One operation of the service's OpenAPI document: upper-case method, templated path, the operation. */
export type OpenApiRoute<TOperation> = { method: string; path: string; operation: TOperation }

/**
 * Every operation of `/api/v1/openapi.json` as the harness's app serves it, for tests that must
 * cover routes added later without being edited (the route matrix, the hostile-input test).
 */
export async function listOpenApiRoutes<TOperation>(h: Harness): Promise<OpenApiRoute<TOperation>[]> {
  const doc = (await (await h.request('/api/v1/openapi.json', { key: null })).json()) as {
    paths: Record<string, Record<string, TOperation>>
  }
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operation,
    })),
  )
}
