import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from './testing/each-database.js'
import { createHarness, type Harness } from './testing/harness.js'
import { listOpenApiRoutes, type OpenApiRoute } from './testing/openapi-routes.js'

// Checks every operation of the generated OpenAPI document, so a route added later is covered
// without editing this file: auth failures, bad query values, bad bodies, and that none of them
// writes anything.

type Parameter = { name: string; in: string; schema?: { enum?: string[] } }
type Operation = { parameters?: Parameter[]; requestBody?: unknown; security?: object[] }
type Route = OpenApiRoute<Operation>

async function countRows(h: Harness): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of [
    'ledger_transfers',
    'balance_transactions',
    'idempotency_keys',
    'api_keys',
    'events',
    'webhook_endpoints',
    'webhook_deliveries',
    'jobs',
  ] as const) {
    const row = await h.deps.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}

describeEachDatabase('every route', (getDb) => {
  let h: Harness
  let routes: Route[]
  beforeAll(async () => {
    h = await createHarness(getDb())
    routes = await listOpenApiRoutes<Operation>(h)
  })
  const toUrl = (path: string, query = '') => `${path.replace(/\{[^}]+\}/g, 'x_missing')}${query}`

  test('auth: every operation is a 401 envelope without a key, with a bad key and with a revoked-looking key', async () => {
    expect(routes.length).toBeGreaterThanOrEqual(9)
    const before = await countRows(h)
    for (const route of routes) {
      // `{}` among the requirements marks a public route (payment pages' public view): only a bad key is refused.
      const keyOptional = route.operation.security?.some((s) => Object.keys(s).length === 0) ?? false
      for (const key of [null, 'sk_test_nope', `sk_live_${'f'.repeat(64)}`]) {
        if (key === null && keyOptional) {
          continue
        }
        const res = await h.request(toUrl(route.path), {
          method: route.method,
          key,
          ...(route.operation.requestBody ? { json: {} } : {}),
        })
        expect(res.status, `${route.method} ${route.path} key=${key}`).toBe(401)
        expect(await res.json()).toEqual({
          success: false,
          message: expect.any(String),
          data: null,
          error: { code: 'unauthorized' },
        })
      }
    }
    expect(await countRows(h)).toEqual(before)
  })

  test('behavior: page 0, size 101, unknown enum values and bad dates are 400 validation_error', async () => {
    const before = await countRows(h)
    let checked = 0
    for (const route of routes.filter((r) => r.method === 'GET')) {
      for (const parameter of route.operation.parameters?.filter((p) => p.in === 'query') ?? []) {
        const bad =
          parameter.name === 'page'
            ? ['0', '-1', 'abc', '1.5']
            : parameter.name === 'size'
              ? ['0', '101', 'ten']
              : parameter.name.endsWith('Date')
                ? ['yesterday', '2026-13-01', '2026-02-30']
                : parameter.schema?.enum
                  ? ['not_a_value']
                  : []
        for (const value of bad) {
          const res = await h.request(toUrl(route.path, `?${parameter.name}=${encodeURIComponent(value)}`))
          const label = `${route.path}?${parameter.name}=${value}`
          expect(res.status, label).toBe(400)
          const body = (await res.json()) as { error: { code: string; details: { field: string }[] } }
          expect(body.error.code, label).toBe('validation_error')
          expect(
            body.error.details.map((d) => d.field),
            label,
          ).toContain(`query.${parameter.name}`)
          checked += 1
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15)
    expect(await countRows(h)).toEqual(before)
  })

  test('behavior: malformed JSON, wrong body types and non-JSON bodies are 4xx with a code; nothing is written', async () => {
    const before = await countRows(h)
    const writes = routes.filter((r) => r.method === 'POST' || r.method === 'PATCH')
    expect(writes.length).toBeGreaterThan(0)
    for (const route of writes) {
      const url = toUrl(route.path)
      const cases: [RequestInit & { json?: unknown }, number, string][] = [
        [{ headers: { 'content-type': 'application/json' }, body: '{"a":' }, 400, 'invalid_json'],
        [{ json: [] }, 400, 'validation_error'],
        [{ json: 'text' }, 400, 'validation_error'],
        [{ json: { currency: 42, amount: true } }, 400, 'validation_error'],
        [{ headers: { 'content-type': 'text/plain' }, body: 'hello' }, 415, 'unsupported_media_type'],
      ]
      for (const [init, status, code] of cases) {
        const res = await h.request(url, { method: route.method, ...init })
        expect(res.status, `${route.method} ${route.path} ${JSON.stringify(init)}`).toBe(status)
        expect(await res.json()).toMatchObject({ success: false, data: null, error: { code } })
      }
    }
    expect(await countRows(h)).toEqual(before)
  })

  test('behavior: an unknown id in a path is a 404 not_found envelope', async () => {
    for (const route of routes.filter((r) => r.method === 'GET' && r.path.includes('{'))) {
      const res = await h.request(toUrl(route.path))
      expect(res.status, route.path).toBe(404)
      expect(await res.json()).toMatchObject({ success: false, data: null, error: { code: 'not_found' } })
    }
  })
})
