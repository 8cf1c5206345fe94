import { z } from '@hono/zod-openapi'
import type { Selectable } from 'kysely'
import type { PayoutsTable } from '../db/schema/payouts.js'
import type { ResponseFormat } from '../http/app-env.js'
import { formatLedgerAmount, type LedgerCurrency } from '../ledger/ledger-currencies.js'
import { maskDetails, payoutRecipientTypes, RecipientDetails } from '../recipients/recipient.js'

const Decimal = z.string().regex(/^(0|[1-9]\d*)(\.\d+)?$/)

/** A currency conversion: `targetAmount` = `sourceAmount` × `rate`, rounded down to the target's scale. */
export const Conversion = z
  .object({
    fromCurrency: z.string(),
    toCurrency: z.string(),
    sourceAmount: Decimal,
    targetAmount: Decimal.describe('sourceAmount × rate, exact, rounded down to the target currency scale'),
    rate: Decimal.describe('toCurrency units per fromCurrency unit'),
  })
  .openapi('Conversion')
/** A currency conversion. */
export type Conversion = z.infer<typeof Conversion>

/** The recipient embedded in a payout, as it was when the payout was made (account numbers masked). */
export const PayoutRecipient = z
  .object({
    id: z.string().nullable(),
    type: z.enum(payoutRecipientTypes),
    details: RecipientDetails,
  })
  .openapi('PayoutRecipient')

/** Payout statuses (spec "States and transitions"). */
export const payoutStatuses = ['pending', 'processing', 'success', 'failed'] as const

/** A payout (every field always present; nullable ones are null). */
export const Payout = z
  .object({
    id: z.string(),
    reference: z.string().nullable(),
    method: z.enum(['fiat', 'crypto']),
    status: z.enum(payoutStatuses),
    amount: Decimal.describe('what the recipient receives, in `currency` (before conversion)'),
    fee: Decimal.describe('fee charged, in `currency`'),
    total: Decimal.describe('deducted from the balance: amount + fee'),
    currency: z.string().describe('balance currency debited'),
    conversion: Conversion.nullable().describe('set when the recipient is paid in another currency'),
    narration: z.string(),
    recipient: PayoutRecipient,
    channel: z.enum(['API', 'dashboard']),
    txHash: z.string().nullable(),
    failureReason: z.string().nullable(),
    completedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Payout')
/** A payout as the API returns it. */
export type Payout = z.infer<typeof Payout>

/** A payout row as read from the database. */
export type PayoutRow = Selectable<PayoutsTable>

/**
 * Renders a payout row in a key's response format. Legacy keys (before release 2.0.0) got `amount` as
 * the total deducted; current keys get what the recipient receives (docs/payouts.md "Versioning").
 */
export function toPayoutResponse(row: PayoutRow, format: ResponseFormat): Payout {
  const currency = row.currency as LedgerCurrency
  const amount = formatLedgerAmount(BigInt(row.amount), currency)
  const total = formatLedgerAmount(BigInt(row.total), currency)
  return {
    id: row.id,
    reference: row.reference,
    method: row.method,
    status: row.status,
    amount: format === 'legacy' ? total : amount,
    fee: formatLedgerAmount(BigInt(row.fee), currency),
    total,
    currency: row.currency,
    conversion:
      row.rate === null
        ? null
        : {
            fromCurrency: row.currency,
            toCurrency: row.target_currency,
            sourceAmount: amount,
            targetAmount: formatLedgerAmount(
              BigInt(row.target_amount),
              row.target_currency as LedgerCurrency,
            ),
            rate: row.rate,
          },
    narration: row.narration,
    recipient: {
      id: row.recipient.id,
      type: row.recipient.type as Payout['recipient']['type'],
      details: maskDetails(row.recipient.details),
    },
    channel: row.channel,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    completedAt: row.completed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}
