import { describe, expect, test } from 'vitest'
import { generateApiKey, hashApiKey, parseKeyEnvironment } from './api-key.js'

describe('generateApiKey', () => {
  test('default', () => {
    const generated = generateApiKey('test')
    expect(generated.key).toMatch(/^sk_test_[0-9a-f]{64}$/)
    expect(generated.hash).toBe(hashApiKey(generated.key))
    expect(generated.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(generated.key.startsWith(generated.prefix)).toBe(true)
    expect(generated.prefix).toHaveLength(14)
    expect(generateApiKey('test').key).not.toBe(generated.key)
  })
  test('parseKeyEnvironment', () => {
    expect(parseKeyEnvironment(generateApiKey('live').key)).toBe('live')
    expect(parseKeyEnvironment(generateApiKey('test').key)).toBe('test')
    expect(parseKeyEnvironment('sk_test_short')).toBeUndefined()
    expect(parseKeyEnvironment(`pk_live_${'a'.repeat(64)}`)).toBeUndefined()
  })
})
