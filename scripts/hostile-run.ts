// A hostile run against a running sandbox (`npm start`), as issue 21's "done when" describes: about
// 2,000 hostile but bounded requests to every operation of its OpenAPI document and to its
// facilitator. Prints how many answers were 5xx (must be 0), whether /health still answers 200, and,
// when DATABASE_URL names the sandbox's PostgreSQL database, how many rows changed (refused requests
// must write nothing). Usage: node --conditions=tollgate-source --import tsx scripts/hostile-run.ts [.tollgate/sandbox.json]
import { readFile } from 'node:fs/promises'
import {
  BAD_DATE_STRINGS,
  deepNesting,
  MALFORMED_BODIES,
  sampleHostileBodies,
  sweepHostileBodies,
  toHostileJsonText,
} from '@tollgate/core/testing'
import pg from 'pg'

type Operation = { parameters?: { name: string; in: string }[]; requestBody?: unknown }
const manifest = JSON.parse(await readFile(process.argv[2] ?? '.tollgate/sandbox.json', 'utf8')) as {
  apiUrl: string
  apiKey: string
  facilitatorUrl: string
}
const origin = new URL(manifest.apiUrl).origin
const limit = Number(process.env.HOSTILE_REQUESTS ?? 2000)
const statuses = new Map<number, number>()
const fivexx: string[] = []
let sent = 0

async function send(path: string, init: RequestInit = {}): Promise<void> {
  if (sent >= limit) {
    return
  }
  sent += 1
  const headers = new Headers(init.headers)
  headers.set('x-api-key', manifest.apiKey)
  const res = await fetch(`${origin}${path}`, {
    ...init,
    headers,
    signal: AbortSignal.timeout(15_000),
  }).catch((error: unknown) => ({ status: 599, text: async () => String(error) }))
  const text = await res.text()
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
  if (res.status >= 500) {
    fivexx.push(`${init.method ?? 'GET'} ${path.slice(0, 120)} → ${res.status} ${text.slice(0, 120)}`)
  }
}

async function countRows(): Promise<number | undefined> {
  if (!process.env.DATABASE_URL) {
    return undefined
  }
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  try {
    const tables = await client.query<{ name: string }>(
      `select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'
         and table_name not in ('jobs', 'chain_cursors', 'kysely_migration', 'kysely_migration_lock')`,
    )
    let total = 0
    for (const { name } of tables.rows) {
      total += Number((await client.query(`select count(*) as n from "${name}"`)).rows[0].n)
    }
    return total
  } finally {
    await client.end()
  }
}

const doc = (await (await fetch(`${manifest.apiUrl}/openapi.json`)).json()) as {
  paths: Record<string, Record<string, Operation>>
}
const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
)
const rowsBefore = await countRows()
const pathValues = ['..%2F..%2Fetc', '%00', 'a%00b', '%ED%A0%80', 'x'.repeat(2_000)]
const queryValues = [
  'a%00b',
  '%01',
  '12abc',
  '1e400',
  '-1',
  '%FF',
  ...BAD_DATE_STRINGS.map(encodeURIComponent),
]
const bodyFor = (route: { operation: Operation }) =>
  route.operation.requestBody ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}
for (const route of routes) {
  for (const p of (route.operation.parameters ?? []).filter((x) => x.in === 'path')) {
    for (const value of pathValues) {
      await send(route.path.replace(`{${p.name}}`, value).replace(/\{[^}]+\}/g, 'x'), {
        method: route.method,
        ...bodyFor(route),
      })
    }
  }
  for (const p of (route.operation.parameters ?? []).filter((x) => x.in === 'query')) {
    for (const value of queryValues) {
      await send(`${route.path.replace(/\{[^}]+\}/g, 'x')}?${p.name}=${value}`, {
        method: route.method,
        ...bodyFor(route),
      })
    }
  }
}
const posts = [
  ...routes
    .filter((r) => r.operation.requestBody)
    .map((r) => ({ method: r.method, path: r.path.replace(/\{[^}]+\}/g, 'x') })),
  { method: 'POST', path: new URL(`${manifest.facilitatorUrl}/verify`).pathname },
  { method: 'POST', path: new URL(`${manifest.facilitatorUrl}/settle`).pathname },
]
const base = {
  x402Version: 2,
  paymentPayload: { x402Version: 2, payload: { signature: '0x', authorization: { value: '1' } } },
  paymentRequirements: { scheme: 'exact', network: 'eip155:84532', amount: '1' },
}
const mutations = [
  ...MALFORMED_BODIES,
  toHostileJsonText({ a: deepNesting(10_000) }),
  JSON.stringify({ a: 'x'.repeat(1_100_000) }),
  ...sweepHostileBodies(base, ['12abc', 'a\u0000b', 'lone \ud800', '0000-01-01', null]).map(
    toHostileJsonText,
  ),
  ...sampleHostileBodies(base, { count: 12, seed: 21 }).map(toHostileJsonText),
]
for (let round = 0; sent < limit && round < 10; round++) {
  for (const target of posts) {
    for (const text of mutations) {
      await send(target.path, {
        method: target.method,
        headers: { 'content-type': 'application/json' },
        body: text,
      })
    }
  }
}
const health = await fetch(`${origin}/health`)
const rowsAfter = await countRows()
const summary = {
  sent,
  statuses: Object.fromEntries([...statuses.entries()].sort(([a], [b]) => a - b)),
  fivexx: fivexx.length,
  health: health.status,
  rowsChanged:
    rowsBefore === undefined || rowsAfter === undefined
      ? 'not counted (set DATABASE_URL)'
      : rowsAfter - rowsBefore,
}
console.log(JSON.stringify(summary, null, 2))
for (const line of fivexx.slice(0, 20)) {
  console.log(line)
}
process.exit(fivexx.length === 0 && health.status === 200 ? 0 : 1)
