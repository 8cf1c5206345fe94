import { describe, expect, test } from 'vitest'
import { resolveMobileMoneyAccount } from './resolve-mobile-money-account.js'

const invalid = (param: string) => expect.objectContaining({ code: 'validation_error', context: { param } })

describe('resolveMobileMoneyAccount', () => {
  test('default: KE and GH mobile numbers, national or E.164, come out as E.164 with the institution', () => {
    const valid: [string, string, string, 'KES' | 'GHS'][] = [
      ['0712345678', 'MPESA', '+254712345678', 'KES'],
      ['+254712345678', 'MPESA', '+254712345678', 'KES'],
      ['254 712 345 678', 'MPESA', '+254712345678', 'KES'],
      ['0110123456', 'MPESA', '+254110123456', 'KES'],
      ['0733123456', 'AIRTEL_KE', '+254733123456', 'KES'],
      ['0241234567', 'MTN_GH', '+233241234567', 'GHS'],
      ['+233201234567', 'VODAFONE_GH', '+233201234567', 'GHS'],
      ['0271234567', 'AIRTELTIGO_GH', '+233271234567', 'GHS'],
    ]
    for (const [phoneNumber, institutionCode, e164, currency] of valid) {
      const resolved = resolveMobileMoneyAccount({
        phoneNumber,
        institutionCode,
        accountName: ' Wanjiru Kamau ',
      })
      expect(resolved, phoneNumber).toEqual({
        currency,
        countryIsoCode: currency === 'KES' ? 'KE' : 'GH',
        accountNumber: e164,
        accountName: 'Wanjiru Kamau',
        institutionCode,
        institutionName: expect.any(String),
        accountType: 'personal',
      })
    }
  })

  test('behavior: landlines, short, foreign and malformed numbers are validation errors on phoneNumber', () => {
    const bad: [string, string][] = [
      ['0202345678', 'MPESA'], // Nairobi landline
      ['0302123456', 'MTN_GH'], // Accra landline
      ['07123456', 'MPESA'], // too short
      ['+2348031234567', 'MPESA'], // Nigerian mobile
      ['+254712345678', 'MTN_GH'], // Kenyan number for a Ghanaian wallet
      ['0241234567', 'MPESA'], // Ghanaian national number read as Kenyan
      ['phone', 'MTN_GH'],
      ['', 'MPESA'],
    ]
    for (const [phoneNumber, institutionCode] of bad) {
      expect(
        () => resolveMobileMoneyAccount({ phoneNumber, institutionCode, accountName: 'A' }),
        `${phoneNumber} ${institutionCode}`,
      ).toThrow(invalid('phoneNumber'))
    }
  })

  test('behavior: unknown institutions, a currency of another corridor and empty names are rejected', () => {
    expect(() =>
      resolveMobileMoneyAccount({ phoneNumber: '0712345678', institutionCode: 'MPESA_TZ', accountName: 'A' }),
    ).toThrow(invalid('institutionCode'))
    expect(() =>
      resolveMobileMoneyAccount({
        currency: 'GHS',
        phoneNumber: '0712345678',
        institutionCode: 'MPESA',
        accountName: 'A',
      }),
    ).toThrow(invalid('currency'))
    expect(() =>
      resolveMobileMoneyAccount({ phoneNumber: '0712345678', institutionCode: 'MPESA', accountName: '  ' }),
    ).toThrow(invalid('accountName'))
  })
})
