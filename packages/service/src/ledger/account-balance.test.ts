import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { toAccountBalance, toBalanceSnapshot } from './account-balance.js'
import { formatLedgerAmount, parseLedgerAmount } from './ledger-currencies.js'

describe('toAccountBalance', () => {
  test('default: available = credits posted - debits posted - debits pending; pending = credits pending', () => {
    expect(
      toAccountBalance({
        creditsPosted: 1000n,
        debitsPosted: 300n,
        debitsPending: 200n,
        creditsPending: 50n,
      }),
    ).toEqual({ available: 500n, pending: 50n, total: 550n })
  })

  test('behavior: a pending debit lowers available and total; a pending credit raises only pending', () => {
    const base = { creditsPosted: 100n, debitsPosted: 0n, debitsPending: 0n, creditsPending: 0n }
    expect(toAccountBalance({ ...base, debitsPending: 40n })).toEqual({
      available: 60n,
      pending: 0n,
      total: 60n,
    })
    expect(toAccountBalance({ ...base, creditsPending: 40n })).toEqual({
      available: 100n,
      pending: 40n,
      total: 140n,
    })
  })

  test('property: total = available + pending, and agrees with toBalanceSnapshot', () => {
    const counter = fc.bigInt({ min: 0n, max: 10n ** 30n })
    fc.assert(
      fc.property(
        counter,
        counter,
        counter,
        counter,
        (creditsPosted, debitsPosted, debitsPending, creditsPending) => {
          const balance = toAccountBalance({ creditsPosted, debitsPosted, debitsPending, creditsPending })
          expect(balance.total).toBe(balance.available + balance.pending)
          expect(toBalanceSnapshot(balance.available, balance.pending)).toEqual(balance)
        },
      ),
    )
  })
})

describe('parseLedgerAmount / formatLedgerAmount', () => {
  test('default: decimal strings to minor units and back at the full scale', () => {
    expect(parseLedgerAmount('12.5', 'USDT')).toBe(12_500_000n)
    expect(formatLedgerAmount(12_500_000n, 'USDT')).toBe('12.500000')
    expect(parseLedgerAmount('1500', 'NGN')).toBe(150_000n)
    expect(formatLedgerAmount(150_000n, 'NGN')).toBe('1500.00')
    expect(formatLedgerAmount(5n, 'NGN')).toBe('0.05')
    expect(formatLedgerAmount(-5n, 'NGN')).toBe('-0.05')
    expect(parseLedgerAmount('123456789012345678901234567890.123456', 'USDC')).toBe(
      123456789012345678901234567890123456n,
    )
  })

  test('behavior: rejects zero, negatives, exponents and too many decimals', () => {
    for (const [value, currency] of [
      ['0', 'USDT'],
      ['0.000', 'USDT'],
      ['-1', 'USDT'],
      ['1e3', 'USDT'],
      ['1.1234567', 'USDT'],
      ['1.001', 'NGN'],
      ['01', 'NGN'],
      ['', 'NGN'],
    ] as const) {
      expect(() => parseLedgerAmount(value, currency), value).toThrow()
    }
  })

  test('property: format then parse round-trips every positive amount', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 40n }),
        fc.constantFrom('USDT', 'NGN'),
        (minor, currency) => {
          expect(parseLedgerAmount(formatLedgerAmount(minor, currency), currency)).toBe(minor)
        },
      ),
    )
  })
})
