import { AppError } from '@tollgate/core'

/**
 * Currencies the ledger keeps balances in, with their ledger scale (decimal places of one minor
 * unit). A chain amount with other decimals (USDT has 18 on BSC) is converted to this scale by the
 * rail that records it; the ledger itself never mixes scales.
 */
export const ledgerCurrencies = { USDT: 6, USDC: 6, NGN: 2, KES: 2, GHS: 2, ZAR: 2 } as const

/** A ledger currency code (`USDT`, `NGN`, ...). */
export type LedgerCurrency = keyof typeof ledgerCurrencies

/** Whether `value` is a ledger currency code. */
export function isLedgerCurrency(value: string): value is LedgerCurrency {
  return Object.hasOwn(ledgerCurrencies, value)
}

const decimalPattern = /^(0|[1-9]\d*)(\.\d+)?$/

/**
 * Parses a decimal string in whole units (`"12.5"`) into minor units of `currency` (`12500000n`
 * for USDT). Rejects malformed strings, more decimals than the currency's scale, and zero.
 */
export function parseLedgerAmount(value: string, currency: LedgerCurrency): bigint {
  const scale = ledgerCurrencies[currency]
  const [whole = '', fraction = ''] = value.split('.')
  if (!decimalPattern.test(value) || fraction.length > scale) {
    throw new AppError('validation_error', {
      message: `"${value}" is not a ${currency} amount (at most ${scale} decimals)`,
    })
  }
  const minor = BigInt(whole + fraction.padEnd(scale, '0'))
  if (minor === 0n) {
    throw new AppError('validation_error', { message: 'amount must be greater than zero' })
  }
  return minor
}

/** Formats minor units of `currency` as a decimal string at the currency's full scale (`"12.500000"`). */
export function formatLedgerAmount(minor: bigint, currency: LedgerCurrency): string {
  const scale = ledgerCurrencies[currency]
  const negative = minor < 0n
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0')
  const whole = digits.slice(0, digits.length - scale)
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${digits.slice(digits.length - scale)}` : ''}`
}
