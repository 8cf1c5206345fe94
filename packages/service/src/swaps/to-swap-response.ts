import type { z } from '@hono/zod-openapi'
import type { Selectable } from 'kysely'
import type { SwapQuotationsTable, SwapsTable } from '../db/schema/deposits-swaps.js'
import { formatLedgerAmount, type LedgerCurrency } from '../ledger/ledger-currencies.js'
import type { Swap, SwapQuotation } from './schemas.js'

/** A `swap_quotations` row. */
export type SwapQuotationRow = Selectable<SwapQuotationsTable>
/** A `swaps` row. */
export type SwapRow = Selectable<SwapsTable>

// The numbers a quotation and its swap share (decimal strings at each currency's full scale).
function toSwapNumbers(row: SwapQuotationRow | SwapRow) {
  const from = row.from_currency as LedgerCurrency
  const to = row.to_currency as LedgerCurrency
  return {
    fromCurrency: from,
    toCurrency: to,
    sourceAmount: formatLedgerAmount(BigInt(row.source_amount), from),
    targetAmount: formatLedgerAmount(BigInt(row.target_amount), to),
    rate: row.rate,
    fee: formatLedgerAmount(BigInt(row.fee), to),
  }
}

/** Renders a quotation row as the API's Swap quotation. */
export function toSwapQuotationResponse(row: SwapQuotationRow): z.infer<typeof SwapQuotation> {
  return {
    id: row.id,
    ...toSwapNumbers(row),
    executed: row.executed_at !== null,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
  }
}

/** Renders a swap row and its quotation as the API's Swap. */
export function toSwapResponse(row: SwapRow, quotation: SwapQuotationRow): z.infer<typeof Swap> {
  return {
    id: row.id,
    ...toSwapNumbers(row),
    status: row.status,
    quotation: toSwapQuotationResponse(quotation),
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  }
}
