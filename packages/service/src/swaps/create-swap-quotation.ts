import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { LedgerCurrency } from '../ledger/ledger-currencies.js'
import { priceSwap } from './price-swap.js'
import type { SwapQuotationRow } from './to-swap-response.js'

/** How long a quotation's rate is locked (spec Limits: 30 seconds). */
export const swapQuotationTtlMs = 30_000

/** Prices a swap and stores it as a quotation that can be executed once within 30 seconds. */
export async function createSwapQuotation(
  deps: Pick<Deps, 'db' | 'ids' | 'clock' | 'rails' | 'settings'>,
  input: {
    merchantId: string
    environment: KeyEnvironment
    fromCurrency: LedgerCurrency
    toCurrency: LedgerCurrency
    sourceAmount: bigint
  },
): Promise<SwapQuotationRow> {
  const price = await priceSwap(deps, input)
  const now = deps.clock.now()
  return deps.db
    .insertInto('swap_quotations')
    .values({
      id: deps.ids.create('swq'),
      merchant_id: input.merchantId,
      environment: input.environment,
      from_currency: price.fromCurrency,
      to_currency: price.toCurrency,
      source_amount: price.sourceAmount,
      target_amount: price.targetAmount,
      fee: price.fee,
      rate: price.rate,
      reference_rate: price.referenceRate,
      expires_at: new Date(now.getTime() + swapQuotationTtlMs),
      executed_at: null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** One of a merchant's quotations; `undefined` when absent or another merchant's or environment's. */
export function getSwapQuotation(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string },
): Promise<SwapQuotationRow | undefined> {
  return deps.db
    .selectFrom('swap_quotations')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('id', '=', input.id)
    .executeTakeFirst()
}
