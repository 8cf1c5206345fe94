/**
 * One currency of the sandbox FX table: its mid rate against USD, quoted as the market usually
 * quotes it (`per_usd`: units per US dollar, NGN 1550; `in_usd`: dollars per unit, BTC 95000), and
 * the house spread in basis points on the currency's side of every pair.
 */
export type SandboxFxEntry = {
  currency: string
  quote: 'per_usd' | 'in_usd'
  rate: string
  spreadBps: number
}

/** Currencies of the FX table: USD, stablecoins, the payout fiats, and the native coins sessions accept. */
export const fxCurrencies = [
  'USD',
  'USDT',
  'USDC',
  'NGN',
  'KES',
  'GHS',
  'ZAR',
  'BTC',
  'ETH',
  'SOL',
  'BNB',
  'TRX',
  'POL',
  'CELO',
  'DOGE',
] as const

/** A currency of {@link fxCurrencies}. */
export type FxTableCurrency = (typeof fxCurrencies)[number]

/** Whether `value` is a currency of the FX table. */
export function isFxCurrency(value: string): value is FxTableCurrency {
  return (fxCurrencies as readonly string[]).includes(value)
}

/**
 * The built-in sandbox mid rates (plausible late-2025 levels; steer them with PUT /sandbox/fx-rates).
 * Spreads: 0 for USD itself, 10 bps for stablecoins, 50 bps for fiat, 100 bps for volatile coins.
 */
export const sandboxFxTable: readonly SandboxFxEntry[] = [
  { currency: 'USD', quote: 'in_usd', rate: '1', spreadBps: 0 },
  { currency: 'USDT', quote: 'in_usd', rate: '1', spreadBps: 10 },
  { currency: 'USDC', quote: 'in_usd', rate: '1', spreadBps: 10 },
  { currency: 'NGN', quote: 'per_usd', rate: '1550', spreadBps: 50 },
  { currency: 'KES', quote: 'per_usd', rate: '129', spreadBps: 50 },
  { currency: 'GHS', quote: 'per_usd', rate: '15.5', spreadBps: 50 },
  { currency: 'ZAR', quote: 'per_usd', rate: '18.2', spreadBps: 50 },
  { currency: 'BTC', quote: 'in_usd', rate: '95000', spreadBps: 100 },
  { currency: 'ETH', quote: 'in_usd', rate: '3500', spreadBps: 100 },
  { currency: 'SOL', quote: 'in_usd', rate: '180', spreadBps: 100 },
  { currency: 'BNB', quote: 'in_usd', rate: '650', spreadBps: 100 },
  { currency: 'TRX', quote: 'in_usd', rate: '0.25', spreadBps: 100 },
  { currency: 'POL', quote: 'in_usd', rate: '0.45', spreadBps: 100 },
  { currency: 'CELO', quote: 'in_usd', rate: '0.65', spreadBps: 100 },
  { currency: 'DOGE', quote: 'in_usd', rate: '0.32', spreadBps: 100 },
]
