import { describe, expect, test } from 'vitest'
import { secretWithheldNote, withholdSecrets } from './withhold-secrets.js'

describe('withholdSecrets', () => {
  test('default: a body without a secret is kept as it is', () => {
    const body = JSON.stringify({ success: true, message: 'ok', data: { id: 'x' } })
    expect(withholdSecrets(body)).toBe(body)
  })

  test('behavior: fields holding a whsec_ secret are dropped and the message says so', () => {
    const body = JSON.stringify({
      success: true,
      message: 'Created',
      data: { id: 'whe_1', secret: 'whsec_abc' },
    })
    expect(JSON.parse(withholdSecrets(body))).toEqual({
      success: true,
      message: `Created (${secretWithheldNote})`,
      data: { id: 'whe_1' },
    })
  })

  test('edge: a secret inside a longer string, or a body that is not JSON, leaves only a marker', () => {
    for (const body of [JSON.stringify({ message: 'm', data: { note: 'use whsec_abc' } }), 'whsec_abc']) {
      const stored = withholdSecrets(body)
      expect(stored).not.toContain('whsec_')
      expect(JSON.parse(stored)).toMatchObject({ message: secretWithheldNote, data: null })
    }
  })
})
