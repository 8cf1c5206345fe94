/** Deepest nesting of arrays and objects a request body may have on any Tollgate surface. */
export const MAX_JSON_DEPTH = 64

/** What {@link findJsonHazard} found: a dotted path (`''` for the root) and a sentence about it. */
export type JsonHazard = { path: string; message: string }

// U+0000, or a UTF-16 surrogate without its partner: PostgreSQL refuses both in text and jsonb, and
// no x402 or merchant API field can be valid with them.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Whether `text` holds U+0000 or an unpaired UTF-16 surrogate (text no database column can store). */
export function hasUnstorableText(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text)
}

/**
 * The first part of a parsed JSON value that no surface accepts (see docs/input-limits.md):
 * arrays or objects nested deeper than `maxDepth` (default {@link MAX_JSON_DEPTH}), or a string
 * or key holding U+0000 or an unpaired surrogate. `undefined` when there is none. Iterative, so
 * any depth is safe to check.
 */
export function findJsonHazard(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonHazard | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }]
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { path, depth } = item
    if (typeof item.value === 'string') {
      if (hasUnstorableText(item.value)) {
        return { path, message: 'must not contain U+0000 or an unpaired UTF-16 surrogate' }
      }
      continue
    }
    if (typeof item.value !== 'object' || item.value === null) {
      continue
    }
    if (depth >= maxDepth) {
      return { path, message: `nests deeper than ${maxDepth} levels` }
    }
    const entries = Array.isArray(item.value) ? item.value.entries() : Object.entries(item.value)
    for (const [key, child] of entries) {
      const childPath = path === '' ? String(key) : `${path}.${key}`
      if (typeof key === 'string' && hasUnstorableText(key)) {
        return { path: childPath, message: 'a key must not contain U+0000 or an unpaired UTF-16 surrogate' }
      }
      stack.push({ value: child, path: childPath, depth: depth + 1 })
    }
  }
  return undefined
}
