import type { Deps } from '../deps.js'
import { isLedgerCurrency } from '../ledger/ledger-currencies.js'
import { applySpread } from './apply-spread.js'

/** A swap rate now: the FX rail's rate less the swap spread (what a quotation would lock). */
export type SwapRateRecord = { fromCurrency: string; toCurrency: string; rate: string; at: Date }

/** The current swap rate of every pair of distinct balance currencies the FX rail quotes. */
export async function listSwapRates(deps: Pick<Deps, 'rails' | 'settings'>): Promise<SwapRateRecord[]> {
  const rates = await deps.rails.fx.listRates()
  return rates
    .filter((r) => r.from !== r.to && isLedgerCurrency(r.from) && isLedgerCurrency(r.to))
    .map((r) => ({
      fromCurrency: r.from,
      toCurrency: r.to,
      rate: applySpread(r.rate, deps.settings.swaps.spreadBps),
      at: r.at,
    }))
    .sort((a, b) => `${a.fromCurrency}/${a.toCurrency}`.localeCompare(`${b.fromCurrency}/${b.toCurrency}`))
}
