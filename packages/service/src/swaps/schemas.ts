import { z } from '@hono/zod-openapi'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'

/** Currencies a swap converts between: the balance (ledger) currencies. */
export const swapCurrencies = Object.keys(ledgerCurrencies) as [
  keyof typeof ledgerCurrencies,
  ...(keyof typeof ledgerCurrencies)[],
]

/** A swap currency (`USDT`, `NGN`, ...). */
export const SwapCurrency = z.enum(swapCurrencies)

const amountPattern = /^(0|[1-9]\d*)(\.\d+)?$/
const Decimal = z.string().regex(amountPattern)
const Rate = Decimal.describe('target units per source unit, 8 decimals')

/**
 * Checks a request's source `amount` against `fromCurrency`: a positive decimal string with at
 * most the currency's decimals (zod refinement shared by the estimate and quotation requests).
 */
function refineSourceAmount(
  value: { fromCurrency: keyof typeof ledgerCurrencies; toCurrency: string; amount: string },
  ctx: z.RefinementCtx,
): void {
  const scale = ledgerCurrencies[value.fromCurrency]
  const [, fraction = ''] = value.amount.split('.')
  if (!amountPattern.test(value.amount)) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: 'must be a decimal string such as "100.50"' })
  } else if (fraction.length > scale) {
    ctx.addIssue({
      code: 'custom',
      path: ['amount'],
      message: `at most ${scale} decimals for ${value.fromCurrency}`,
    })
  } else if (/^[0.]+$/.test(value.amount)) {
    ctx.addIssue({ code: 'custom', path: ['amount'], message: 'must be greater than zero' })
  }
  if (value.fromCurrency === value.toCurrency) {
    ctx.addIssue({ code: 'custom', path: ['toCurrency'], message: 'must differ from fromCurrency' })
  }
}

const amountField = z.string().max(40).describe('decimal string in fromCurrency')

/** Query of GET /swap/estimate. */
export const SwapEstimateQuery = z
  .object({
    fromCurrency: SwapCurrency.openapi({ param: { name: 'fromCurrency', in: 'query' } }),
    toCurrency: SwapCurrency.openapi({ param: { name: 'toCurrency', in: 'query' } }),
    amount: amountField.openapi({ param: { name: 'amount', in: 'query' }, example: '100' }),
  })
  .superRefine(refineSourceAmount)

/** Body of POST /swap/quotation. */
export const SwapQuotationBody = z
  .object({ fromCurrency: SwapCurrency, toCurrency: SwapCurrency, amount: amountField })
  .strict()
  .superRefine(refineSourceAmount)
  .openapi('SwapQuotationBody')

/** Body of POST /swap/execute/{quotationId} (optional). */
export const SwapExecuteBody = z
  .object({
    webhookUrl: z
      .string()
      .url()
      .max(2048)
      .optional()
      .describe('HTTPS URL; replaces the dashboard webhook URL for this swap only'),
  })
  .strict()
  .openapi('SwapExecuteBody')

/** A swap rate (spec "Swap rate"): the rate a quotation would lock now. */
export const SwapRate = z
  .object({
    fromCurrency: z.string(),
    toCurrency: z.string(),
    rate: Rate,
    timestamp: z.string().describe('ISO 8601'),
  })
  .openapi('SwapRate')

/** The answer of GET /swap/estimate: a quotation's numbers without locking them. */
export const SwapEstimate = z
  .object({
    fromCurrency: z.string(),
    toCurrency: z.string(),
    sourceAmount: Decimal,
    targetAmount: Decimal,
    rate: Rate,
  })
  .openapi('SwapEstimate')

/** A swap quotation (spec "Swap quotation"); `fee` is the spread, in toCurrency, already out of targetAmount. */
export const SwapQuotation = z
  .object({
    id: z.string(),
    fromCurrency: z.string(),
    toCurrency: z.string(),
    sourceAmount: Decimal,
    targetAmount: Decimal.describe('what the balance in toCurrency receives'),
    rate: Rate,
    fee: Decimal.describe('spread charged, in toCurrency (already deducted from targetAmount)'),
    executed: z.boolean(),
    expiresAt: z.string().describe('ISO 8601; 30 seconds after createdAt'),
    createdAt: z.string().describe('ISO 8601'),
  })
  .openapi('SwapQuotation')

/** A swap (spec "Swap"). */
export const Swap = z
  .object({
    id: z.string(),
    fromCurrency: z.string(),
    toCurrency: z.string(),
    sourceAmount: Decimal,
    targetAmount: Decimal,
    rate: Rate,
    fee: Decimal.describe('spread charged, in toCurrency'),
    status: z.enum(['completed']),
    quotation: SwapQuotation,
    createdAt: z.string().describe('ISO 8601'),
    completedAt: z.string().nullable().describe('ISO 8601'),
  })
  .openapi('Swap')
