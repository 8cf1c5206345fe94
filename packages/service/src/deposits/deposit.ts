import { z } from '@hono/zod-openapi'
import type { Selectable } from 'kysely'
import { Customer, type CustomerRow, toCustomerResponse } from '../customers/customer.js'
import type { DepositsTable } from '../db/schema/deposits-swaps.js'
import { formatLedgerAmount, type LedgerCurrency } from '../ledger/ledger-currencies.js'
import { NgnVirtualAccount, StaticDepositAddress } from './deposit-account.js'

/** A `deposits` row. */
export type DepositRow = Selectable<DepositsTable>

const Decimal = z.string().regex(/^(0|[1-9]\d*)(\.\d+)?$/)
const BankParty = z.object({
  accountName: z.string().nullable(),
  accountNumber: z.string().nullable(),
  bankName: z.string().nullable(),
  bankCode: z.string().nullable(),
})

/** The `crypto` part of a deposit. */
export const DepositCrypto = z
  .object({
    txHash: z.string(),
    chain: z.string(),
    asset: z.string(),
    amount: Decimal.describe('in the asset, at its on-chain decimals'),
    fromAddress: z.string().nullable(),
    toAddress: z.string(),
    amlCheck: z.enum(['passed', 'failed', 'pending']),
    confirmations: z.number().int().describe('confirmations when last seen'),
    staticDepositAddress: StaticDepositAddress,
  })
  .openapi('DepositCrypto')

/** The `fiat` part of a deposit. */
export const DepositFiat = z
  .object({
    reference: z.string(),
    method: z.enum(['bank_transfer']),
    payer: BankParty,
    payee: BankParty,
    ngnVirtualAccount: NgnVirtualAccount,
  })
  .openapi('DepositFiat')

/** The spec's Conversion: `sourceAmount × rate = targetAmount` (rounded down). */
export const Conversion = z
  .object({
    fromCurrency: z.string(),
    toCurrency: z.string(),
    sourceAmount: Decimal,
    targetAmount: Decimal,
    rate: Decimal,
  })
  .openapi('Conversion')

/** The Deposit resource (spec "Deposit"); exactly one of `crypto` and `fiat` is set. */
export const Deposit = z
  .object({
    id: z.string(),
    type: z.enum(['crypto', 'fiat']),
    status: z.enum(['pending', 'completed', 'failed']),
    amount: Decimal.describe('credited amount in `currency`, before the fee'),
    currency: z.string().describe('the balance currency credited'),
    fee: Decimal,
    netAmount: Decimal.describe('amount - fee: what the balance receives'),
    conversion: Conversion.describe(
      'how the deposit became `currency`; without a conversion the identity: same currency, rate "1", sourceAmount = targetAmount = amount',
    ),
    depositAccountId: z.string(),
    balanceReference: z
      .string()
      .nullable()
      .describe(
        '`reference` of the balance transactions that credit it (as on settlements); null before any credit',
      ),
    customer: Customer.nullable().describe('the account holder; null for the merchant parent account'),
    crypto: DepositCrypto.nullable(),
    fiat: DepositFiat.nullable(),
    failureReason: z.string().nullable().describe('`reverted`, `aml_check_failed`'),
    createdAt: z.string().describe('ISO 8601'),
    completedAt: z.string().nullable().describe('ISO 8601'),
  })
  .openapi('Deposit')

/** Renders a deposit row and its holder as the API's Deposit. */
export function toDepositResponse(row: DepositRow, customer: CustomerRow | null): z.infer<typeof Deposit> {
  const currency = row.currency as LedgerCurrency
  const amount = formatLedgerAmount(BigInt(row.amount), currency)
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    amount,
    currency,
    fee: formatLedgerAmount(BigInt(row.fee), currency),
    netAmount: formatLedgerAmount(BigInt(row.net_amount), currency),
    // Stored only when the deposit converted; the spec's Conversion is not nullable (issue 34 item 3).
    conversion: (row.conversion as z.infer<typeof Conversion> | null) ?? {
      fromCurrency: currency,
      toCurrency: currency,
      sourceAmount: amount,
      targetAmount: amount,
      rate: '1',
    },
    depositAccountId: row.deposit_account_id,
    // The credit's balance transactions carry the deposit's id as their `reference` (record-*-deposit.ts).
    balanceReference: row.ledger_transaction_id === null ? null : row.id,
    customer: customer ? toCustomerResponse(customer) : null,
    crypto: (row.crypto as z.infer<typeof DepositCrypto> | null) ?? null,
    fiat: (row.fiat as z.infer<typeof DepositFiat> | null) ?? null,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  }
}
