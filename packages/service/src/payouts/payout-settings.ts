/**
 * The payout fee table (decimal strings, flat per payout): local fiat per currency and payment type,
 * cross-border per target currency and payment type (charged in the source stablecoin), crypto per
 * asset and chain. GET /payouts/fees shows it as it is; see docs/payouts.md.
 */
export type PayoutFeeTable = {
  fiat: Record<string, Record<string, string>>
  crossBorder: Record<string, Record<string, string>>
  crypto: Record<string, Record<string, string>>
}

/** Payout settings of {@link ServiceSettings}: fees, the default daily limit and timings. */
export type PayoutSettings = {
  fees: PayoutFeeTable
  /** Default daily payout limit per merchant and environment, in USD (decimal string); see docs/payouts.md. */
  dailyLimitUsd: string
  /** Lifetime of a cross-border quote (the spec: two minutes). */
  quoteTtlMs: number
  /** When the backstop job looks at a payout that the request did not hand to its provider. */
  submitGraceMs: number
  /** Delay before re-querying a provider that timed out or did not answer (doubles per attempt). */
  requeryDelayMs: number
}

/** The sandbox's payout settings. */
export const defaultPayoutSettings: PayoutSettings = {
  fees: {
    fiat: { NGN: { BankTransfer: '50.00' } },
    crossBorder: { KES: { MobileMoney: '0.50' }, GHS: { MobileMoney: '0.50' } },
    crypto: {
      USDT: {
        ethereum: '3.00',
        tron: '1.00',
        bsc: '0.30',
        polygon: '0.10',
        arbitrum: '0.10',
        solana: '0.10',
      },
      USDC: {
        ethereum: '3.00',
        base: '0.10',
        arbitrum: '0.10',
        polygon: '0.10',
        solana: '0.10',
        bsc: '0.30',
        celo: '0.10',
      },
    },
  },
  dailyLimitUsd: '50000',
  quoteTtlMs: 120_000,
  submitGraceMs: 30_000,
  requeryDelayMs: 5_000,
}
