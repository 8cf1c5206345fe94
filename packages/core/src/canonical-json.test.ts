import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isAppError } from './app-error.js'
import { toCanonicalJson } from './canonical-json.js'
import { MAX_JSON_DEPTH } from './json-hazards.js'

function reorder(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(reorder)
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, item]) => [key, reorder(item)]),
    )
  }
  return value
}

describe('toCanonicalJson', () => {
  it('sorts keys at every level and writes no whitespace', () => {
    expect(toCanonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}',
    )
  })

  it('drops undefined members and writes undefined array items as null, as JSON.stringify does', () => {
    const value = { a: undefined, b: [1, undefined, 3], c: () => 1 }
    expect(toCanonicalJson(value)).toBe('{"b":[1,null,3]}')
    expect(JSON.parse(toCanonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)))
    expect(toCanonicalJson(undefined)).toBe('null')
  })

  it('uses toJSON like JSON.stringify (dates become their ISO string)', () => {
    expect(toCanonicalJson({ at: new Date(Date.UTC(2026, 0, 2)) })).toBe('{"at":"2026-01-02T00:00:00.000Z"}')
  })

  it('is the same text for any key order and parses back to what JSON.stringify keeps', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = toCanonicalJson(value)
        expect(toCanonicalJson(reorder(value))).toBe(text)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
  })

  it(`refuses values nested deeper than ${MAX_JSON_DEPTH} levels with invalid_request`, () => {
    let deep: unknown = 1
    for (let level = 0; level <= MAX_JSON_DEPTH; level += 1) {
      deep = [deep]
    }
    let thrown: unknown
    try {
      toCanonicalJson(deep)
    } catch (error) {
      thrown = error
    }
    expect(isAppError(thrown) && thrown.code).toBe('invalid_request')
  })
})
