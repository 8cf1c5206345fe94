import fc from 'fast-check'

// Test support shared by the hostile-input tests of the facilitator, the middleware and the
// service (see docs/input-limits.md): values a caller may send in place of any JSON field, and a
// way to put nesting deeper than JSON.stringify can write into a request body.

/** A placeholder string that {@link toHostileJsonText} replaces with nested arrays. */
export const DEEP_MARKER = '\u{1F573}deep'

/** `depth` levels of nested arrays, as a JSON value written into a body by {@link toHostileJsonText}. */
export function deepNesting(depth: number): string {
  return `${DEEP_MARKER}:${depth}`
}

/** `JSON.stringify(value)`, with every {@link deepNesting} marker replaced by that many nested arrays. */
export function toHostileJsonText(value: unknown): string {
  return JSON.stringify(value).replace(
    new RegExp(`"${DEEP_MARKER}:(\\d+)"`, 'gu'),
    (_match, depth: string) => `${'['.repeat(Number(depth))}${']'.repeat(Number(depth))}`,
  )
}

/** Number strings that are not plain unsigned decimals (each once crashed a `BigInt()` refinement). */
export const BAD_NUMBER_STRINGS = [
  '12abc',
  '1e3',
  ' 5',
  '5 ',
  '-0x1',
  '0x10',
  '-1',
  '+1',
  '1.5',
  '',
  '0777',
  '١٢٣',
  '9'.repeat(100),
] as const

/** Strings PostgreSQL refuses in `text` and `jsonb`, or that only a careless parser accepts. */
export const BAD_TEXT_STRINGS = [
  'a\u0000b',
  '\u0000',
  'lone \ud800 high',
  'lone \udc00 low',
  '\udfff\ud800',
  'bell\u0007',
  '../../etc/passwd',
  '%00',
  'x'.repeat(60 * 1024),
] as const

/** Dates at or past the edges of any calendar a database keeps. */
export const BAD_DATE_STRINGS = [
  '2026-02-30',
  '2026-13-01',
  '2026-00-10',
  '0000-01-01',
  '0001-01-01T00:00:00+14:00',
  '10000-01-01',
  '-000001-01-01',
  '+275760-09-13T00:00:00Z',
  '2026-01-01T25:00:00Z',
  '1969-12-31T23:59:59Z',
  '2026-01-01T00:00:00+99:00',
] as const

/** Any value a hostile caller may put where a JSON field is expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...BAD_NUMBER_STRINGS, ...BAD_TEXT_STRINGS, ...BAD_DATE_STRINGS),
  fc.constantFrom(null, true, false, 0, -1, 1.5, -1e308, 1e308, 2 ** 53 + 1, [], {}, [[]], { a: {} }),
  fc.constantFrom(deepNesting(100), deepNesting(3_000), deepNesting(10_000)),
  fc.constantFrom('not_a_value', 'UNKNOWN', 'exact\u0000', 'eip155:99999999'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
)

/** Bodies that are not JSON objects at all (each as the raw text sent). */
export const MALFORMED_BODIES = [
  '',
  '{',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  'null',
  '[]',
  '"text"',
  '42',
  'true',
  '\u0000',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  `{"a":${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}}`,
] as const

/** Every path (as key lists) to a value inside `value`, the root excluded. */
export function listJsonPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) {
    return []
  }
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value)
  return entries.flatMap(([key, item]) => [[...prefix, key], ...listJsonPaths(item, [...prefix, key])])
}

/** A deep copy of `value` with the item at `path` replaced by `replacement`. */
export function replaceAtPath(
  value: unknown,
  path: readonly (string | number)[],
  replacement: unknown,
): unknown {
  if (path.length === 0) {
    return replacement
  }
  const [head, ...rest] = path as [string | number, ...(string | number)[]]
  if (Array.isArray(value)) {
    return value.map((item, index) => (index === head ? replaceAtPath(item, rest, replacement) : item))
  }
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  return { ...record, [head]: replaceAtPath(record[head], rest, replacement) }
}

/**
 * Bodies derived from a valid `base`: each one has one field (or a new `junk` field beside it)
 * replaced by a {@link hostileValue}. Deterministic for a given `seed`.
 */
export function sampleHostileBodies(base: unknown, options: { count: number; seed: number }): unknown[] {
  const paths = listJsonPaths(base)
  const objectPaths = [[], ...paths.filter((path) => isObjectAt(base, path))]
  const added = fc.tuple(
    fc.constantFrom(...objectPaths).map((path) => [...path, 'junk']),
    hostileValue,
  )
  const mutation =
    paths.length > 0 ? fc.oneof(fc.tuple(fc.constantFrom(...paths), hostileValue), added) : added
  return fc
    .sample(mutation, { numRuns: options.count, seed: options.seed })
    .map(([path, value]) => replaceAtPath(base, path, value))
}

/** Bodies with every field of `base` replaced in turn by each of `values` (an exhaustive edge sweep). */
export function sweepHostileBodies(base: unknown, values: readonly unknown[]): unknown[] {
  return listJsonPaths(base).flatMap((path) => values.map((value) => replaceAtPath(base, path, value)))
}

function isObjectAt(value: unknown, path: readonly (string | number)[]): boolean {
  let current = value
  for (const key of path) {
    current = (current as Record<string | number, unknown>)[key]
  }
  return typeof current === 'object' && current !== null && !Array.isArray(current)
}
