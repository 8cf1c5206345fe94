import { selectPage } from '../db/select-page.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { SwapQuotationRow, SwapRow } from './to-swap-response.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Filters of {@link listSwaps}; dates are inclusive bounds on `createdAt`. */
export type SwapFilters = {
  fromCurrency?: string | undefined
  toCurrency?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/** A swap with the quotation it executed. */
export type SwapRecord = { swap: SwapRow; quotation: SwapQuotationRow }

/** A page of a merchant's swaps, newest first, and how many match in total. */
export async function listSwaps(
  deps: Pick<Deps, 'db'>,
  input: Scope & SwapFilters & { page: number; size: number },
): Promise<{ items: SwapRecord[]; total: number }> {
  let query = deps.db
    .selectFrom('swaps')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  if (input.fromCurrency !== undefined) {
    query = query.where('from_currency', '=', input.fromCurrency)
  }
  if (input.toCurrency !== undefined) {
    query = query.where('to_currency', '=', input.toCurrency)
  }
  const { rows, total } = await selectPage(query, { ...input, orderBy: 'seq' })
  return { items: await withQuotations(deps, rows), total }
}

/** One of a merchant's swaps with its quotation; `undefined` when absent or another merchant's. */
export async function getSwap(
  deps: Pick<Deps, 'db'>,
  input: Scope & { id: string },
): Promise<SwapRecord | undefined> {
  const row = await deps.db
    .selectFrom('swaps')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('id', '=', input.id)
    .executeTakeFirst()
  return row && (await withQuotations(deps, [row]))[0]
}

async function withQuotations(deps: Pick<Deps, 'db'>, rows: SwapRow[]): Promise<SwapRecord[]> {
  if (rows.length === 0) {
    return []
  }
  const quotations = await deps.db
    .selectFrom('swap_quotations')
    .selectAll()
    .where(
      'id',
      'in',
      rows.map((row) => row.quotation_id),
    )
    .execute()
  const byId = new Map(quotations.map((q) => [q.id, q]))
  return rows.flatMap((swap) => {
    const quotation = byId.get(swap.quotation_id)
    return quotation ? [{ swap, quotation }] : []
  })
}
