import { describe, expect, test } from 'vitest'
import { resolveSandboxBankAccount, sandboxAccountName } from './resolve-sandbox-bank-account.js'
import { sandboxOutcomeOf } from './sandbox-outcome.js'

describe('resolveSandboxBankAccount', () => {
  test('default: a NUBAN resolves to the same holder name every time, at every bank', () => {
    const first = resolveSandboxBankAccount({ accountNumber: '0123456789', bankCode: '058' })
    expect(first).toEqual({
      accountNumber: '0123456789',
      accountName: expect.stringMatching(/^[A-Z]+ [A-Z]+$/),
      bankCode: '058',
      bankName: 'Guaranty Trust Bank',
    })
    expect(resolveSandboxBankAccount({ accountNumber: '0123456789', bankCode: '058' })).toEqual(first)
    expect(resolveSandboxBankAccount({ accountNumber: '0123456789', bankCode: '044' }).accountName).toBe(
      first.accountName,
    )
    // Different numbers spread over the name lists (not one constant name).
    const names = new Set(
      Array.from({ length: 50 }, (_, i) => sandboxAccountName(`01234567${String(i).padStart(2, '0')}`)),
    )
    expect(names.size).toBeGreaterThan(20)
  })

  test('behavior: numbers starting with 000 are unknown (recipient_not_found); bad input is a validation error', () => {
    expect(() => resolveSandboxBankAccount({ accountNumber: '0001234567', bankCode: '058' })).toThrow(
      expect.objectContaining({ code: 'recipient_not_found' }),
    )
    for (const accountNumber of ['012345678', '01234567890', '012345678a', '']) {
      expect(() => resolveSandboxBankAccount({ accountNumber, bankCode: '058' }), accountNumber).toThrow(
        expect.objectContaining({ code: 'validation_error', context: { param: 'accountNumber' } }),
      )
    }
    expect(() => resolveSandboxBankAccount({ accountNumber: '0123456789', bankCode: '999' })).toThrow(
      expect.objectContaining({ code: 'validation_error', context: { param: 'bankCode' } }),
    )
  })
})

describe('sandboxOutcomeOf', () => {
  test('default: the last four digits steer the outcome', () => {
    expect(sandboxOutcomeOf('0123450000')).toBe('failed')
    expect(sandboxOutcomeOf('+254712341111')).toBe('held')
    expect(sandboxOutcomeOf('0123452222')).toBe('timeout')
    expect(sandboxOutcomeOf('0123456789')).toBe('success')
    expect(sandboxOutcomeOf('0000123456')).toBe('success')
  })
})
