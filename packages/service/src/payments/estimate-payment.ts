import { formatAtomicAmount } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { isLedgerCurrency, type LedgerCurrency } from '../ledger/ledger-currencies.js'
import { parseFiatAmount, toFieldError } from './assert-session-input.js'
import { findSessionByReference } from './load-payment-session.js'
import { type FeePayer, quoteSessionPayment } from './quote-session-payment.js'
import type { PaymentEstimate } from './schemas.js'
import { fiatScale } from './session-money.js'

/** Query of GET /payments/estimate; with `reference`, the session fills whatever is not given. */
export type EstimatePaymentInput = {
  merchantId: string
  environment: KeyEnvironment
  amount?: string | undefined
  currency?: string | undefined
  asset?: string | undefined
  chain?: string | undefined
  feePayer?: FeePayer | undefined
  settlementCurrency?: LedgerCurrency | undefined
  reference?: string | undefined
}

/** Prices a session in a crypto asset at the current rate, without locking it. */
export async function estimatePayment(deps: Deps, input: EstimatePaymentInput): Promise<PaymentEstimate> {
  const session = input.reference
    ? await findSessionByReference(deps.db, { ...input, reference: input.reference })
    : undefined
  const amount =
    input.amount !== undefined
      ? parseFiatAmount(input.amount, 'amount', 'query')
      : session && BigInt(session.amount)
  const currency = input.currency ?? session?.currency
  const asset = input.asset ?? session?.asset ?? undefined
  const chain = input.chain ?? session?.chain ?? undefined
  const missing = (
    [
      ['amount', amount],
      ['currency', currency],
      ['asset', asset],
      ['chain', chain],
    ] as const
  ).find(([, value]) => value === undefined)
  if (
    missing ||
    amount === undefined ||
    currency === undefined ||
    asset === undefined ||
    chain === undefined
  ) {
    throw toFieldError(missing?.[0] ?? 'amount', 'required (or a session reference that has it)', 'query')
  }
  const stored = session?.settlement_currency
  const quote = await quoteSessionPayment(deps, {
    environment: input.environment,
    amount,
    currency,
    chain,
    asset,
    feePayer: input.feePayer ?? session?.fee_payer ?? deps.settings.sessions.defaultFeePayer,
    settlementCurrency: input.settlementCurrency ?? (stored && isLedgerCurrency(stored) ? stored : null),
  })
  const decimals = quote.asset.decimals
  return {
    fiat: { amount: formatAtomicAmount(amount, fiatScale), currency },
    crypto: { amount: formatAtomicAmount(quote.cryptoAmount, decimals), asset: quote.asset.symbol, chain },
    fees: {
      networkFee: formatAtomicAmount(quote.gasFee, decimals),
      processingFee: formatAtomicAmount(quote.processingFee, decimals),
      paidBy: quote.feePayer,
    },
    conversionRate: quote.rate,
    settlementCurrency: quote.settlesIn,
  }
}
