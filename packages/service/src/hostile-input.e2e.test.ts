import {
  BAD_DATE_STRINGS,
  deepNesting,
  MALFORMED_BODIES,
  sampleHostileBodies,
  sweepHostileBodies,
  toHostileJsonText,
} from '@tollgate/core/testing'
import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { createRateLimiter } from './http/rate-limit.js'
import { describeEachDatabase } from './testing/each-database.js'
import { createHarness, type Harness } from './testing/harness.js'
import { listOpenApiRoutes, type OpenApiRoute } from './testing/openapi-routes.js'

// Hostile input against every operation of the OpenAPI document (docs/input-limits.md), so a route
// added later is covered without editing this file: hostile path and query values, malformed and
// mutated bodies, bodies over the limit. Every answer must be < 500 (a 4xx in the error envelope
// when refused), and a refused request writes nothing to any table.

type Schema = {
  type?: string | string[]
  enum?: unknown[]
  example?: unknown
  default?: unknown
  format?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  minimum?: number
  minLength?: number
}
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema }
type Operation = {
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, { schema?: Schema }> }
}
type Route = OpenApiRoute<Operation>

// Values for a path parameter, already URL-encoded where they must be.
const HOSTILE_PATH_VALUES = [
  '..%2F..%2Fetc',
  '..',
  '%00',
  'a%00b',
  '%ED%A0%80',
  'x'.repeat(2_000),
  '%E2%80%AE',
]
// Query values, sent through encodeURIComponent (the lone surrogate goes raw, see below).
const HOSTILE_QUERY_VALUES = [
  'a\u0000b',
  '\u0001',
  '12abc',
  '1e400',
  '-1',
  '99999999999999999999999',
  'not_a_value',
  'x'.repeat(60 * 1024),
  ...BAD_DATE_STRINGS,
]

/** A schema-valid example value for `schema` (its example, default, first enum value, or a plain value). */
function exampleOf(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 8) {
    return undefined
  }
  if (schema.example !== undefined) {
    return schema.example
  }
  if (schema.default !== undefined) {
    return schema.default
  }
  if (schema.enum?.length) {
    return schema.enum[0]
  }
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0]
  if (variant) {
    return exampleOf(variant, depth + 1)
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, exampleOf(value, depth + 1)]),
      )
    case 'array':
      return [exampleOf(schema.items, depth + 1)]
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1)
    case 'boolean':
      return true
    case 'string':
      return schema.format === 'date-time'
        ? '2026-01-01T00:00:00Z'
        : 'x'.repeat(Math.max(schema.minLength ?? 1, 1))
    default:
      return undefined
  }
}

// One statement counting the rows of every table of the schema (listed once: migrations ran already).
async function createRowCounter(h: Harness): Promise<() => Promise<number>> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(h.deps.db)
  expect(tables.rows.length).toBeGreaterThan(3)
  const counts = sql.join(
    tables.rows.map(({ name }) => sql`select count(*) as n from ${sql.table(name)}`),
    sql` union all `,
  )
  return async () => {
    const result = await sql<{ total: string }>`select sum(n)::text as total from (${counts}) as c`.execute(
      h.deps.db,
    )
    return Number(result.rows[0]?.total ?? 0)
  }
}

describeEachDatabase('every route under hostile input', (getDb) => {
  let h: Harness
  let routes: Route[]
  let countAllRows: () => Promise<number>
  beforeAll(async () => {
    // No rate limit: a few hundred requests from one key must all reach the routes.
    const rateLimiter = createRateLimiter({ limit: Number.MAX_SAFE_INTEGER, windowMs: 60_000 })
    h = await createHarness(getDb(), { bodyLimitBytes: 16 * 1024, rateLimiter })
    countAllRows = await createRowCounter(h)
    routes = await listOpenApiRoutes<Operation>(h)
  })

  const failures: string[] = []
  let sent = 0
  const send = async (label: string, url: string, init: RequestInit & { json?: unknown } = {}) => {
    const before = await countAllRows()
    const response = await h.request(url, init)
    sent += 1
    const text = await response.text()
    const short = `${label.slice(0, 140)} → ${response.status}`
    if (response.status >= 500) {
      failures.push(`${short} ${text.slice(0, 200)}`)
      return
    }
    if (response.status >= 400) {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {}
      const envelope = body as { success?: unknown; data?: unknown; error?: { code?: unknown } } | undefined
      if (envelope?.success !== false || envelope.data !== null || typeof envelope.error?.code !== 'string') {
        failures.push(`${short} not an error envelope: ${text.slice(0, 120)}`)
      }
      if ((await countAllRows()) !== before) {
        failures.push(`${short} wrote rows`)
      }
    }
  }
  const toUrl = (route: Route, values: Record<string, string> = {}, query = '') =>
    `${route.path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? 'x_missing')}${query}`

  // Thousands of requests, each followed by a row count of every table: minutes on a loaded machine.
  const sweepTimeoutMs = 300_000

  test(
    'behavior: hostile path and query values are never a 5xx and write nothing',
    async () => {
      expect(routes.length).toBeGreaterThanOrEqual(9)
      const from = failures.length
      for (const route of routes) {
        const parameters = route.operation.parameters ?? []
        const body = route.operation.requestBody ? { json: {} } : {}
        for (const parameter of parameters.filter((p) => p.in === 'path')) {
          for (const value of HOSTILE_PATH_VALUES) {
            const url = toUrl(route, { [parameter.name]: value })
            await send(`${route.method} ${url}`, url, { method: route.method, ...body })
          }
        }
        for (const parameter of parameters.filter((p) => p.in === 'query')) {
          const values = [...HOSTILE_QUERY_VALUES.map(encodeURIComponent), '%ED%A0%80', '%FF', 'a%00b']
          for (const value of values) {
            const url = toUrl(route, {}, `?${parameter.name}=${value}`)
            await send(`${route.method} ${url}`, url, { method: route.method, ...body })
          }
        }
      }
      expect(failures.slice(from), `${failures.length - from} bad answers of ${sent}`).toEqual([])
    },
    sweepTimeoutMs,
  )

  test(
    'behavior: malformed, mutated, deep and oversized bodies are never a 5xx and write nothing',
    async () => {
      const from = failures.length
      const writes = routes.filter((r) => r.operation.requestBody)
      expect(writes.length).toBeGreaterThan(0)
      for (const route of writes) {
        const url = toUrl(route)
        const schema = route.operation.requestBody?.content?.['application/json']?.schema
        const base = exampleOf(schema) ?? {}
        const post = (label: string, text: string) =>
          send(`${route.method} ${route.path} ${label}`, url, {
            method: route.method,
            headers: { 'content-type': 'application/json' },
            body: text,
          })
        for (const text of MALFORMED_BODIES) {
          await post(`malformed ${JSON.stringify(text.slice(0, 30))}`, text)
        }
        await post('over the limit', JSON.stringify({ a: 'x'.repeat(32 * 1024) }))
        await post('deep 10000', toHostileJsonText({ a: deepNesting(10_000) }))
        const mutated = [
          ...sweepHostileBodies(base, [
            '12abc',
            'a\u0000b',
            'lone \ud800',
            '0000-01-01',
            deepNesting(100),
            null,
          ]),
          ...sampleHostileBodies(base, { count: 20, seed: 19 }),
        ]
        for (const [index, body] of mutated.entries()) {
          const text = toHostileJsonText(body)
          await post(`#${index} ${text.slice(0, 100)}`, text)
        }
      }
      expect(failures.slice(from), `${failures.length - from} bad answers of ${sent}`).toEqual([])
    },
    sweepTimeoutMs,
  )
  test('hostile: a 90-digit amount, price or rate is a 400 validation_error naming the field, on every route', async () => {
    // Issue 34: a 90-digit `amount` on POST /payments answered 500. Every decimal field has a bound.
    const huge = `9${'0'.repeat(89)}`
    const decimalName = /(amount|price|rate)s?$/i
    const doc = (await (await h.request('/api/v1/openapi.json', { key: null })).json()) as {
      components: { schemas: Record<string, Schema> }
    }
    const resolve = (schema: Schema | undefined): Schema | undefined => {
      const ref = (schema as { $ref?: string } | undefined)?.$ref
      return ref ? doc.components.schemas[ref.split('/').pop() ?? ''] : schema
    }
    const checked: string[] = []
    const refusals: string[] = []
    const expectRefused = async (
      label: string,
      field: string,
      url: string,
      init: RequestInit & { json?: unknown },
    ) => {
      const res = await h.request(url, init)
      const body = (await res.json()) as { error?: { code?: string; details?: { field: string }[] } }
      checked.push(label)
      const fields = body.error?.details?.map((d) => d.field) ?? []
      if (res.status !== 400 || body.error?.code !== 'validation_error' || !fields.includes(field)) {
        refusals.push(`${label} → ${res.status} ${JSON.stringify(body.error).slice(0, 160)}`)
      }
    }
    for (const route of routes) {
      for (const parameter of (route.operation.parameters ?? []).filter((p) => p.in === 'query')) {
        if (decimalName.test(parameter.name)) {
          const url = toUrl(route, {}, `?${parameter.name}=${huge}`)
          await expectRefused(
            `${route.method} ${route.path}?${parameter.name}`,
            `query.${parameter.name}`,
            url,
            {
              method: route.method,
            },
          )
        }
      }
      const schema = resolve(route.operation.requestBody?.content?.['application/json']?.schema)
      const base = (exampleOf(schema) ?? {}) as Record<string, unknown>
      for (const [name, property] of Object.entries(schema?.properties ?? {})) {
        const type = Array.isArray(property.type) ? property.type[0] : property.type
        if (decimalName.test(name) && (type === 'string' || type === 'number')) {
          const value = type === 'number' ? Number(huge) : huge
          await expectRefused(`${route.method} ${route.path} body.${name}`, `body.${name}`, toUrl(route), {
            method: route.method,
            json: { ...base, [name]: value },
          })
        }
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining(['POST /api/v1/payments body.amount', 'POST /api/v1/payouts body.amount']),
    )
    expect(refusals).toEqual([])
  })
})
