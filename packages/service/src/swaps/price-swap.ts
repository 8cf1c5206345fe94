import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import { type LedgerCurrency, ledgerCurrencies } from '../ledger/ledger-currencies.js'
import { applySpread } from './apply-spread.js'

/** A swap's numbers at one instant, in minor units: what a quotation locks. */
export type SwapPrice = {
  fromCurrency: LedgerCurrency
  toCurrency: LedgerCurrency
  sourceAmount: bigint
  /** What the merchant receives: `sourceAmount` at `rate`, rounded down. */
  targetAmount: bigint
  /** The spread in `toCurrency`: `sourceAmount` at `referenceRate` minus `targetAmount`. */
  fee: bigint
  /** The quoted rate (8 decimals) after the spread. */
  rate: string
  /** The FX rail's rate the spread was taken from. */
  referenceRate: string
  at: Date
}

/**
 * Prices a swap of `sourceAmount` minor units: the FX rail's rate less the swap spread, both
 * conversions rounded down (docs/swaps.md). A same-currency pair or an amount too small to buy
 * one minor unit of the target currency is a `validation_error`.
 */
export async function priceSwap(
  deps: Pick<Deps, 'rails' | 'settings'>,
  input: { fromCurrency: LedgerCurrency; toCurrency: LedgerCurrency; sourceAmount: bigint },
): Promise<SwapPrice> {
  const { fromCurrency, toCurrency, sourceAmount } = input
  if (fromCurrency === toCurrency) {
    throw new AppError('validation_error', {
      message: 'fromCurrency and toCurrency must differ',
      context: { param: 'toCurrency' },
    })
  }
  const reference = await deps.rails.fx.getRate(fromCurrency, toCurrency)
  const rate = applySpread(reference.rate, deps.settings.swaps.spreadBps)
  const scales = { fromScale: ledgerCurrencies[fromCurrency], toScale: ledgerCurrencies[toCurrency] }
  const gross = deps.rails.fx.convert({ amount: sourceAmount, ...scales, rate: reference.rate })
  const targetAmount = deps.rails.fx.convert({ amount: sourceAmount, ...scales, rate })
  if (targetAmount <= 0n) {
    throw new AppError('validation_error', {
      message: `amount is too small to buy any ${toCurrency}`,
      context: { param: 'amount' },
    })
  }
  return {
    fromCurrency,
    toCurrency,
    sourceAmount,
    targetAmount,
    fee: gross - targetAmount,
    rate,
    referenceRate: reference.rate,
    at: reference.at,
  }
}
