import { AppError } from '@tollgate/core'
import type { FxRates } from '../rails/types.js'

/** Rates of {@link createTestFxRates}: `FROM/TO` → target units per source unit. */
export const testFxTable: Record<string, string> = {
  'USDT/NGN': '1500.00000000',
  'NGN/USDT': '0.00066000',
  'USDC/NGN': '1499.50000000',
  'NGN/USDC': '0.00065900',
  'USDT/USDC': '0.99950000',
  'USDC/USDT': '0.99950000',
  'USDT/KES': '129.00000000',
  'KES/USDT': '0.00770000',
  'USDT/GHS': '15.40000000',
  'GHS/USDT': '0.06400000',
}

/**
 * A fixed-table {@link FxRates} for tests of FX consumers while the sandbox FX rail is elsewhere:
 * exact conversions (rounded down), an unknown pair is a `validation_error`.
 */
export function createTestFxRates(table: Record<string, string> = testFxTable, at = new Date()): FxRates {
  const getRate = async (from: string, to: string) => {
    const rate = table[`${from}/${to}`]
    if (rate === undefined) {
      throw new AppError('validation_error', { message: `No FX rate for ${from} to ${to}` })
    }
    return { from, to, rate, at }
  }
  return {
    getRate,
    listRates: async () =>
      Object.entries(table).map(([pair, rate]) => {
        const [from = '', to = ''] = pair.split('/')
        return { from, to, rate, at }
      }),
    convert: ({ amount, fromScale, toScale, rate }) => {
      const [whole = '0', fraction = ''] = rate.split('.')
      const numerator = amount * BigInt(whole + fraction) * 10n ** BigInt(toScale)
      return numerator / 10n ** BigInt(fraction.length + fromScale)
    },
  }
}
