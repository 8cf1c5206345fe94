import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import { parseLedgerAmount } from '../ledger/ledger-currencies.js'

/** Marks a merchant verified (or not): verified businesses may make cross-border payouts. */
export async function verifyMerchant(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; verified?: boolean },
): Promise<{ id: string; verified: boolean }> {
  const row = await deps.db
    .updateTable('merchants')
    .set({ verified: input.verified ?? true })
    .where('id', '=', input.merchantId)
    .returning(['id', 'verified'])
    .executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', { message: `Merchant ${input.merchantId} not found` })
  }
  return row
}

/** Sets a merchant's daily payout limit in USD (decimal string), or back to the default with null. */
export async function setPayoutDailyLimit(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; limitUsd: string | null },
): Promise<{ id: string; payoutDailyLimitUsd: string | null }> {
  const limit = input.limitUsd === null ? null : parseLedgerAmount(input.limitUsd, 'USDT')
  const row = await deps.db
    .updateTable('merchants')
    .set({ payout_daily_limit: limit })
    .where('id', '=', input.merchantId)
    .returning('id')
    .executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', { message: `Merchant ${input.merchantId} not found` })
  }
  return { id: row.id, payoutDailyLimitUsd: input.limitUsd }
}
