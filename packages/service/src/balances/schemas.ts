import { z } from '@hono/zod-openapi'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'
import { ledgerSources } from '../ledger/ledger-types.js'

/** Balance currencies (spec: payout and balance currencies): the ledger's currencies. */
export const balanceCurrencies = Object.keys(ledgerCurrencies) as [
  keyof typeof ledgerCurrencies,
  ...(keyof typeof ledgerCurrencies)[],
]

/** Values of a balance transaction's `source` filter. */
export const balanceTransactionSources = ledgerSources

/** Values of a balance transaction's `status` filter. */
export const balanceTransactionStatuses = ['pending', 'completed', 'voided'] as const

const Decimal = z.string().regex(/^-?(0|[1-9]\d*)(\.\d+)?$/)

/** A balance in one currency: decimal strings at the currency's scale. */
export const Balance = z
  .object({
    currency: z.string().describe('balance currency, e.g. USDT'),
    available: Decimal.describe('spendable: posted credits - posted debits - pending debits'),
    pending: Decimal.describe('incoming, not yet confirmed: pending credits'),
    total: Decimal.describe('available + pending'),
  })
  .openapi('Balance')

const BalanceSnapshot = z.object({ available: Decimal, pending: Decimal, total: Decimal })

/** A balance transaction: the merchant-visible view of one ledger transfer. */
export const BalanceTransaction = z
  .object({
    id: z.string(),
    source: z.enum(balanceTransactionSources).describe('what moved the money'),
    sourceId: z.string().nullable(),
    sourceReference: z.string().nullable(),
    description: z.string().nullable(),
    direction: z.enum(['credit', 'debit']).describe('credit = money in, debit = money out'),
    status: z.enum(balanceTransactionStatuses).describe('pending, completed or voided'),
    amount: Decimal,
    currency: z.string(),
    reference: z.string().nullable(),
    txHash: z.string().nullable().describe('hash of the crypto transaction (deposits), else null'),
    balanceBefore: BalanceSnapshot,
    balanceAfter: BalanceSnapshot,
    createdAt: z.string().describe('ISO 8601'),
  })
  .openapi('BalanceTransaction')
