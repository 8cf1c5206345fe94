// Preloaded (`--import`) into the sandbox by bench/sandbox-idle.ts: counts the SQL statements sent to
// PGlite (by their first words), whether sent as text or run as named prepared statements through
// the extended protocol, and the JSON-RPC calls sent through undici, `fetch` or the RPC clients' pool
// (by host and method), and writes the running totals to $COUNT_IO_FILE every second. Benchmark
// instrumentation only.
import { subscribe } from 'node:diagnostics_channel'
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

// The extended protocol (the PGlite dialect's prepared statements): a Parse message names a statement
// and carries its text, each Bind runs one; both are read from the outgoing message bytes.
const named = new Map()
const cstring = (bytes, at) => {
  const end = bytes.indexOf(0, at)
  return [Buffer.from(bytes.subarray(at, end)).toString('utf8'), end + 1]
}
const originalProtocol = PGlite.prototype.execProtocolStream
if (originalProtocol) {
  PGlite.prototype.execProtocolStream = function (message, ...rest) {
    try {
      const view = new DataView(message.buffer, message.byteOffset, message.byteLength)
      for (let at = 0; at + 5 <= message.length; at += 1 + view.getInt32(at + 1)) {
        const type = String.fromCharCode(message[at])
        if (type === 'P') {
          const [name, next] = cstring(message, at + 5)
          named.set(name, cstring(message, next)[0])
        } else if (type === 'B') {
          const [, next] = cstring(message, at + 5)
          const [statement] = cstring(message, next)
          bump(sql, shape(named.get(statement) ?? `prepared ${statement}`))
        }
      }
    } catch {}
    return originalProtocol.call(this, message, ...rest)
  }
}

// Every undici request (fetch, Pool.request, Pool.dispatch) announces itself with its body.
subscribe('undici:request:create', ({ request }) => {
  try {
    const raw = request.body
    const text =
      typeof raw === 'string' ? raw : raw instanceof Uint8Array ? Buffer.from(raw).toString('utf8') : ''
    const body = text ? JSON.parse(text) : undefined
    const host = new URL(request.origin).host
    for (const call of Array.isArray(body) ? body : body ? [body] : []) {
      if (call?.method) {
        bump(rpc, `${host} ${call.method}`)
      }
    }
  } catch {}
})

const file = process.env.COUNT_IO_FILE
if (file) {
  setInterval(() => {
    writeFileSync(file, JSON.stringify({ sql: Object.fromEntries(sql), rpc: Object.fromEntries(rpc) }))
  }, 1000).unref()
}
