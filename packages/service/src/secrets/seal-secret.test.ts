import { isAppError } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { getSealingKeyId, openSecret, sealSecret } from './seal-secret.js'
import { deriveSandboxSecretKeyring, generateSecretKeyring, parseSecretKeys } from './secret-keyring.js'

describe('sealSecret / openSecret', () => {
  test('default: round-trips under the current key, which the stored value names; never the same twice', () => {
    const keyring = parseSecretKeys(`k2:${'01'.repeat(32)},k1:${'02'.repeat(32)}`)
    const a = sealSecret(keyring, 'whsec_abc')
    expect(a).toMatch(/^enc:v1:k2:/)
    expect(a).not.toContain('whsec_abc')
    expect(a).not.toBe(sealSecret(keyring, 'whsec_abc'))
    expect(getSealingKeyId(a)).toBe('k2')
    expect(openSecret(keyring, a)).toBe('whsec_abc')
    // An older key still opens what it sealed.
    expect(openSecret(keyring, sealSecret({ ...keyring, currentKeyId: 'k1' }, 'whsec_old'))).toBe('whsec_old')
  })

  test('behavior: a value stored in clear reads as it is; an unknown key or a tampered value is secret_unreadable', () => {
    const keyring = generateSecretKeyring()
    expect(openSecret(keyring, 'whsec_clear')).toBe('whsec_clear')
    expect(getSealingKeyId('whsec_clear')).toBeNull()
    const other = sealSecret(generateSecretKeyring('other'), 'whsec_x')
    expect(() => openSecret(keyring, other)).toThrow(expect.objectContaining({ code: 'secret_unreadable' }))
    const sealed = sealSecret(keyring, 'whsec_x')
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`
    const error = (() => {
      try {
        return openSecret(keyring, tampered)
      } catch (caught) {
        return caught
      }
    })()
    expect(isAppError(error, 'secret_unreadable')).toBe(true)
  })

  test('behavior: TOLLGATE_SECRET_KEYS is checked; the sandbox key is stable per master seed', () => {
    for (const bad of [
      '',
      'k1',
      `k1:${'0'.repeat(63)}`,
      `k1:${'0'.repeat(64)},k1:${'1'.repeat(64)}`,
      `bad id:${'0'.repeat(64)}`,
    ]) {
      expect(() => parseSecretKeys(bad)).toThrow(expect.objectContaining({ code: 'invalid_config' }))
    }
    const seed = 'ab'.repeat(64)
    const sealed = sealSecret(deriveSandboxSecretKeyring(seed), 'whsec_s')
    expect(openSecret(deriveSandboxSecretKeyring(seed), sealed)).toBe('whsec_s')
    expect(() => openSecret(deriveSandboxSecretKeyring('cd'.repeat(64)), sealed)).toThrow()
  })
})
