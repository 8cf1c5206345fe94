import { AppError } from './app-error.js'
import { MAX_JSON_DEPTH } from './json-hazards.js'

/**
 * JSON text of `value` that does not depend on key order: object keys sorted by UTF-16 code unit,
 * `undefined` members dropped and `undefined` array items written as `null` (both as
 * `JSON.stringify` does). Two values that `JSON.stringify` would round-trip to equal data give the
 * same text, so a hash of it identifies a payment however its JSON was ordered (PostgreSQL `jsonb`
 * does not keep key order). Recursive, so bounded: throws `invalid_request` for values nested
 * deeper than {@link MAX_JSON_DEPTH} levels, which every HTTP surface refuses earlier anyway.
 */
export function toCanonicalJson(value: unknown): string {
  return write(value, 0)
}

function write(value: unknown, depth: number): string {
  if (typeof value !== 'object' || value === null) {
    return JSON.stringify(value) ?? 'null'
  }
  if (depth >= MAX_JSON_DEPTH) {
    throw new AppError('invalid_request', {
      context: { issues: { payload: `nests deeper than ${MAX_JSON_DEPTH} levels` } },
      message: `the value nests deeper than ${MAX_JSON_DEPTH} levels`,
    })
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => write(item ?? null, depth + 1)).join(',')}]`
  }
  if ('toJSON' in value && typeof value.toJSON === 'function') {
    return write(value.toJSON(), depth)
  }
  const entries = Object.entries(value)
    .filter(([, item]) => item !== undefined && typeof item !== 'function' && typeof item !== 'symbol')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${write(item, depth + 1)}`).join(',')}}`
}
