import { describe, expect, test } from 'vitest'
import { findJsonHazard, hasUnstorableText, MAX_JSON_DEPTH } from './json-hazards.js'

const nest = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i += 1) {
    value = [value]
  }
  return value
}

describe('findJsonHazard', () => {
  test('default: ordinary bodies, emoji and escapes pass', () => {
    expect(findJsonHazard({ a: ['x', 1, null, { b: 'é 😀 \t\n' }] })).toBeUndefined()
    expect(findJsonHazard(nest(MAX_JSON_DEPTH))).toBeUndefined()
  })

  test('behavior: nesting past the bound is named at its path, at any depth without recursion', () => {
    expect(findJsonHazard(nest(MAX_JSON_DEPTH + 1))).toEqual({
      path: Array.from({ length: MAX_JSON_DEPTH }, () => '0').join('.'),
      message: 'nests deeper than 64 levels',
    })
    expect(findJsonHazard(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))?.message).toBe(
      'nests deeper than 64 levels',
    )
    expect(findJsonHazard({ a: nest(3) }, 3)?.path).toBe('a.0.0')
  })

  test('behavior: U+0000 and unpaired surrogates in values or keys are refused', () => {
    expect(findJsonHazard({ a: { b: 'x\u0000' } })).toEqual({
      path: 'a.b',
      message: 'must not contain U+0000 or an unpaired UTF-16 surrogate',
    })
    expect(findJsonHazard(['ok', 'lone \ud800'])?.path).toBe('1')
    expect(findJsonHazard({ 'k\udc00': 1 })?.message).toMatch(/^a key/)
  })
})

describe('hasUnstorableText', () => {
  test('behavior: only NUL and unpaired surrogates count', () => {
    expect(
      ['\u0000', '\ud800', '\udc00', 'a\udfff\ud800b', '\ud800\ud800\udc00'].map(hasUnstorableText),
    ).toEqual([true, true, true, true, true])
    expect(['', 'plain', '😀', '\u0001\u001f', '\ud800\udc00'].map(hasUnstorableText)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ])
  })
})
