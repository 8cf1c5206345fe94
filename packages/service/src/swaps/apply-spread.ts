import { AppError } from '@tollgate/core'

/** Decimal places of a swap rate on the wire (spec "Swap rate"). */
export const swapRateDecimals = 8

const ratePattern = /^(0|[1-9]\d*)(\.\d+)?$/
const bpsDenominator = 10_000n

/**
 * The swap rate the merchant gets: `rate` (target units per source unit) less `spreadBps` basis
 * points, rounded down to 8 decimals (in the house's favour). Throws for a malformed or zero rate.
 */
export function applySpread(rate: string, spreadBps: number): string {
  if (!ratePattern.test(rate) || !Number.isInteger(spreadBps) || spreadBps < 0 || spreadBps >= 10_000) {
    throw new AppError('internal_error', {
      message: `Cannot apply a ${spreadBps} bps spread to rate "${rate}"`,
    })
  }
  const [whole = '0', fraction = ''] = rate.split('.')
  const scaled = BigInt(whole + fraction.padEnd(swapRateDecimals, '0'))
  const divisor = 10n ** BigInt(Math.max(0, fraction.length - swapRateDecimals))
  // (whole.fraction × 10^8) exactly as a rational, times (1 - bps), one floor at the end.
  const quoted = (scaled * (bpsDenominator - BigInt(spreadBps))) / (bpsDenominator * divisor)
  if (quoted === 0n) {
    throw new AppError('internal_error', { message: `Rate "${rate}" rounds to zero at 8 decimals` })
  }
  return formatRate(quoted)
}

function formatRate(scaled: bigint): string {
  const digits = scaled.toString().padStart(swapRateDecimals + 1, '0')
  return `${digits.slice(0, -swapRateDecimals)}.${digits.slice(-swapRateDecimals)}`
}
