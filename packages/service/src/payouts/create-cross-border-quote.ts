import { z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { formatLedgerAmount, ledgerCurrencies, parseLedgerAmount } from '../ledger/ledger-currencies.js'
import { assertVerified } from './create-payout.js'
import { Conversion } from './payout.js'
import { findPayoutFee } from './payout-fee.js'

/** The cross-border quote (returned without envelope): the price of paying `sourceAmount` out as KES or GHS. */
export const CrossBorderQuote = z
  .object({
    id: z.string().describe('pass as quoteId to POST /payouts'),
    conversion: Conversion,
    fee: z.string().describe('flat fee in conversion.fromCurrency'),
    total: z.string().describe('conversion.sourceAmount + fee, in conversion.fromCurrency'),
    expiresAt: z.string().describe('ISO 8601; two minutes after the quote'),
  })
  .openapi('CrossBorderQuote')
/** The cross-border quote. */
export type CrossBorderQuote = z.infer<typeof CrossBorderQuote>

/**
 * Prices a cross-border payout at the current rate (with the house spread) and locks that price for
 * the quote lifetime: the recipient gets `sourceAmount` × rate rounded down to the target currency's
 * scale. For verified merchants only (403 `forbidden`).
 */
export async function createCrossBorderQuote(
  deps: Deps,
  input: {
    merchantId: string
    environment: KeyEnvironment
    currency: 'KES' | 'GHS'
    sourceCurrency: 'USDT' | 'USDC'
    sourceAmount: string
  },
): Promise<CrossBorderQuote> {
  await assertVerified(deps, input.merchantId)
  const invalid = (message: string) =>
    new AppError('validation_error', {
      message,
      context: { param: 'sourceAmount', details: [{ field: 'body.sourceAmount', message, code: 'invalid' }] },
    })
  let source: bigint
  try {
    source = parseLedgerAmount(input.sourceAmount, input.sourceCurrency)
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : String(error))
  }
  const fee = findPayoutFee(deps.settings.payouts.fees, {
    kind: 'cross_border',
    currency: input.currency,
    sourceCurrency: input.sourceCurrency,
  })
  if (fee === undefined) {
    throw new AppError('validation_error', {
      message: `${input.currency} payouts are not offered`,
      context: { param: 'currency' },
    })
  }
  const { rate } = await deps.rails.fx.getRate(input.sourceCurrency, input.currency)
  const target = deps.rails.fx.convert({
    amount: source,
    fromScale: ledgerCurrencies[input.sourceCurrency],
    toScale: ledgerCurrencies[input.currency],
    rate,
  })
  if (target <= 0n) {
    throw invalid(
      `${input.sourceAmount} ${input.sourceCurrency} converts to less than 0.01 ${input.currency}`,
    )
  }
  const now = deps.clock.now()
  const expiresAt = new Date(now.getTime() + deps.settings.payouts.quoteTtlMs)
  const id = deps.ids.create('pq')
  await deps.db
    .insertInto('payout_quotes')
    .values({
      id,
      merchant_id: input.merchantId,
      environment: input.environment,
      currency: input.currency,
      source_currency: input.sourceCurrency,
      source_amount: source,
      target_amount: target,
      rate,
      fee,
      expires_at: expiresAt,
      created_at: now,
    })
    .execute()
  return {
    id,
    conversion: {
      fromCurrency: input.sourceCurrency,
      toCurrency: input.currency,
      sourceAmount: formatLedgerAmount(source, input.sourceCurrency),
      targetAmount: formatLedgerAmount(target, input.currency),
      rate,
    },
    fee: formatLedgerAmount(fee, input.sourceCurrency),
    total: formatLedgerAmount(source + fee, input.sourceCurrency),
    expiresAt: expiresAt.toISOString(),
  }
}
