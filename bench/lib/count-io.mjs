// Preloaded (`--import`) into the sandbox by bench/sandbox-idle.ts: counts the SQL statements sent to
// PGlite (by their first words) and the JSON-RPC calls sent over fetch (by host and method), and
// writes the running totals to $COUNT_IO_FILE every second. Benchmark instrumentation only.
import { writeFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'

const sql = new Map()
const rpc = new Map()
const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1)
const shape = (text) =>
  String(text).replace(/\s+/g, ' ').replace(/"/g, '').replace(/\$\d+/g, '?').slice(0, 110)

for (const method of ['query', 'exec']) {
  const original = PGlite.prototype[method]
  PGlite.prototype[method] = function (text, ...rest) {
    bump(sql, shape(text))
    return original.call(this, text, ...rest)
  }
}

const originalFetch = globalThis.fetch
globalThis.fetch = async (input, init) => {
  try {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
    for (const call of Array.isArray(body) ? body : body ? [body] : []) {
      if (call?.method) {
        bump(rpc, `${url.host} ${call.method}`)
      }
    }
  } catch {}
  return originalFetch(input, init)
}

const file = process.env.COUNT_IO_FILE
if (file) {
  setInterval(() => {
    writeFileSync(file, JSON.stringify({ sql: Object.fromEntries(sql), rpc: Object.fromEntries(rpc) }))
  }, 1000).unref()
}
