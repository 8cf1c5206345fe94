import type { z } from '@hono/zod-openapi'
import type { AccountBalance } from '../ledger/account-balance.js'
import type { BalanceTransactionRecord } from '../ledger/balance-transactions.js'
import type { CurrencyBalance } from '../ledger/get-balances.js'
import { formatLedgerAmount, type LedgerCurrency } from '../ledger/ledger-currencies.js'
import type { Balance, BalanceTransaction } from './schemas.js'

/** A ledger balance as the API shows it: decimal strings at the currency's full scale. */
export function toBalanceResponse(balance: CurrencyBalance): z.infer<typeof Balance> {
  return { currency: balance.currency, ...formatBalance(balance, balance.currency) }
}

/** A ledger balance transaction as the API shows it (spec "Balance transaction"). */
export function toBalanceTransactionResponse(
  record: BalanceTransactionRecord,
): z.infer<typeof BalanceTransaction> {
  return {
    id: record.id,
    source: record.source,
    sourceId: record.sourceId,
    sourceReference: record.sourceReference,
    description: record.description,
    direction: record.direction,
    status: record.status,
    amount: formatLedgerAmount(record.amount, record.currency),
    currency: record.currency,
    reference: record.reference,
    txHash: record.txHash,
    balanceBefore: formatBalance(record.balanceBefore, record.currency),
    balanceAfter: formatBalance(record.balanceAfter, record.currency),
    createdAt: record.createdAt.toISOString(),
  }
}

function formatBalance(balance: AccountBalance, currency: LedgerCurrency) {
  return {
    available: formatLedgerAmount(balance.available, currency),
    pending: formatLedgerAmount(balance.pending, currency),
    total: formatLedgerAmount(balance.total, currency),
  }
}
