import { describe, expect, test } from 'vitest'
import { matchesAccountName, toNameTokens } from './match-account-name.js'

describe('matchesAccountName', () => {
  test('ignores case, spacing, punctuation, accents and word order', () => {
    expect(matchesAccountName('OKAFOR  CHIDI-EMEKA', ['Chidi Emeka Okafor'])).toBe(true)
    expect(matchesAccountName('acme  ventures, ltd.', [null, 'ACME Ventures Ltd'])).toBe(true)
    expect(matchesAccountName('Adébáyọ̀ Ọlá', ['adebayo ola'])).toBe(true)
  })

  test('needs every word, no more and no fewer', () => {
    expect(matchesAccountName('Acme Ventures', ['Acme Ventures Ltd'])).toBe(false)
    expect(matchesAccountName('Acme Ventures Ltd Lagos', ['Acme Ventures Ltd'])).toBe(false)
    expect(matchesAccountName('John John Doe', ['John Doe'])).toBe(false)
    expect(matchesAccountName('Jane Doe', ['John Doe', null])).toBe(false)
  })

  test('an empty name matches nothing', () => {
    expect(matchesAccountName('  ', [''])).toBe(false)
    expect(toNameTokens(' A  b ')).toEqual(['a', 'b'])
  })
})
