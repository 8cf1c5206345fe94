import { z } from '@hono/zod-openapi'
import { Customer } from '../customers/customer.js'
import { toDecimalField } from '../http/decimal-field.js'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'
import { chainNames } from '../reference/chains.js'
import { sessionCurrencies } from './session-money.js'

const Decimal = z.string().regex(/^-?(0|[1-9]\d*)(\.\d+)?$/)
const NullableDecimal = Decimal.nullable()
const FeePayerEnum = z.enum(['merchant', 'customer'])
const Iso = z.string().describe('ISO 8601')

/** Values of a session's `payment.status` (docs/sessions.md "State machine"). */
export const paymentStatuses = [
  'pending',
  'confirming',
  'partial',
  'completed',
  'underpaid',
  'expired',
  'failed',
] as const

/** Settlement currencies a session may ask for: the ledger's balance currencies. */
export const settlementCurrencies = Object.keys(ledgerCurrencies) as [
  keyof typeof ledgerCurrencies,
  ...(keyof typeof ledgerCurrencies)[],
]

/** Status of a blockchain transaction of a session. */
export const transactionStatuses = ['pending', 'confirmed', 'reverted'] as const

/** A blockchain transaction of a payment session (spec "Blockchain transaction"). */
export const BlockchainTransaction = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    txHash: z.string(),
    status: z
      .enum(transactionStatuses)
      .describe('pending (below the confirmation count), confirmed, reverted'),
    chain: z.string(),
    asset: z.string(),
    fromAddress: z.string().nullable(),
    toAddress: z.string(),
    amount: Decimal.describe('in the asset, at its on-chain decimals'),
    confirmations: z.string().describe('confirmations counted so far'),
    amlCheck: z.string().describe('pending, passed or failed'),
    failureReason: z.string().nullable(),
    explorerUrl: z.string().nullable(),
    confirmedAt: Iso.nullable(),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .openapi('BlockchainTransaction')
/** A blockchain transaction of a payment session. */
export type BlockchainTransaction = z.infer<typeof BlockchainTransaction>

const FeeLine = z.object({ amount: NullableDecimal, paidBy: FeePayerEnum })

/** The inline settlement of a session: amounts in `currency` (the settlement currency). */
export const SessionSettlements = z.object({
  currency: z.string().nullable().describe('settlement currency; null until the asset is chosen'),
  customerPaid: z.object({ amount: NullableDecimal.describe('in the asset paid') }),
  gross: z.object({ amount: NullableDecimal, conversionRate: z.string().nullable() }),
  fees: z.object({ processing: FeeLine, gas: FeeLine }),
  net: z.object({ amount: NullableDecimal }),
})

const paymentShape = {
  asset: z.string().nullable(),
  chain: z.string().nullable(),
  amount: NullableDecimal.describe('crypto amount the customer sends (locked with the address)'),
  amountReceived: Decimal.describe('crypto received and not reverted, confirmed or not'),
  overpaidAmount: Decimal.describe('confirmed crypto beyond `amount`'),
  address: z.string().nullable(),
  gasFee: NullableDecimal.describe('network fee, in the asset'),
  feePaidBy: FeePayerEnum,
  conversionRate: z.string().nullable().describe('asset units per fiat unit, locked with the address'),
  txHash: z.string().nullable(),
}

const commonShape = {
  id: z.string(),
  reference: z.string(),
  title: z.string(),
  description: z.string(),
  type: z.string().describe('checkout'),
  url: z.string().describe('hosted checkout page of the session'),
  cancelUrl: z.string().nullable(),
  successUrl: z.string().nullable(),
  customer: Customer.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  invoiceId: z.string().nullable(),
  refundStatus: z.string().nullable(),
  isRefunded: z.boolean(),
  isUnderpaymentAccepted: z.boolean(),
  createdAt: Iso,
  expiresAt: Iso,
  completedAt: Iso.nullable(),
  transactions: z.array(BlockchainTransaction).optional().describe('only with includeTransactions=true'),
}

/** The Payment session resource in the current format (release 2.0.0 and later). */
export const PaymentSession = z
  .object({
    ...commonShape,
    state: z.enum(['open', 'closed']),
    amount: Decimal.describe('requested fiat amount'),
    amountPaid: Decimal.describe('fiat value of the confirmed crypto at the locked rate'),
    currency: z.string(),
    settlements: SessionSettlements,
    payment: z.object({ status: z.enum(paymentStatuses), ...paymentShape }),
  })
  .openapi('PaymentSession')
/** The Payment session resource in the current format. */
export type PaymentSession = z.infer<typeof PaymentSession>

/** The Payment session resource for legacy keys (before 2.0.0): `status`, amounts nested under `amount`. */
export const LegacyPaymentSession = z
  .object({
    ...commonShape,
    status: z.string().describe('pending, confirming, partial, completed, expired or failed'),
    amount: z.object({
      value: Decimal,
      currency: z.string(),
      paid: Decimal,
      customerPaid: z.object({ amount: NullableDecimal }),
      gross: z.object({
        amount: NullableDecimal,
        currency: z.string().nullable(),
        conversionRate: z.string().nullable(),
      }),
      fees: z.object({ processing: FeeLine, gas: FeeLine }),
      net: z.object({ amount: NullableDecimal, currency: z.string().nullable() }),
    }),
    payment: z.object(paymentShape),
  })
  .openapi('LegacyPaymentSession')
/** The Payment session resource for legacy keys. */
export type LegacyPaymentSession = z.infer<typeof LegacyPaymentSession>

/** A session as either format returns it (decided by the API key). */
export const AnyPaymentSession = z.union([PaymentSession, LegacyPaymentSession])

const CustomerInput = z.object({
  email: z.email().max(254).optional(),
  firstName: z.string().min(1).max(100).optional(),
  lastName: z.string().min(1).max(100).optional(),
  phone: z.string().min(3).max(32).optional(),
  telegramId: z.string().min(1).max(64).optional(),
})

const UrlField = z.string().min(1).max(2048)
const AssetField = z.string().min(1).max(16).describe('asset symbol, e.g. USDC')

/** Body of POST /payments. */
export const CreatePaymentSessionBody = z
  .object({
    title: z.string().min(1).max(200),
    description: z.string().max(1000).optional(),
    amount: toDecimalField().describe('fiat amount, at most 2 decimals, greater than zero'),
    currency: z.enum(sessionCurrencies),
    asset: AssetField.optional(),
    chain: z.enum(chainNames).optional(),
    customer: CustomerInput.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    cancelUrl: UrlField.optional().describe('HTTPS'),
    successUrl: UrlField.optional().describe('HTTPS'),
    webhookUrl: UrlField.optional().describe(
      'HTTPS; receives this session’s events instead of the dashboard URL',
    ),
    feePayer: FeePayerEnum.optional().describe('who pays the processing and network fees; default merchant'),
    settlementCurrency: z
      .enum(settlementCurrencies)
      .optional()
      .describe('default: the asset’s own stablecoin, else USDT'),
    isUnderpaymentAccepted: z.boolean().optional().describe('an underpaid session completes at expiry'),
  })
  .openapi('CreatePaymentSessionBody')
/** Body of POST /payments. */
export type CreatePaymentSessionBody = z.infer<typeof CreatePaymentSessionBody>

/** Body of POST /payments/{reference}/address. */
export const CreateSessionAddressBody = z
  .object({
    asset: AssetField.optional(),
    chain: z.enum(chainNames).optional(),
    customer: CustomerInput.optional(),
  })
  // Strict: every field is optional, so a misspelt one must not silently pass as an empty body.
  .strict()
  .openapi('CreateSessionAddressBody')
/** Body of POST /payments/{reference}/address. */
export type CreateSessionAddressBody = z.infer<typeof CreateSessionAddressBody>

/** `true` or `false` in a query string. */
export const QueryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true')

/** The estimate of GET /payments/estimate. */
export const PaymentEstimate = z
  .object({
    fiat: z.object({ amount: Decimal, currency: z.string() }),
    crypto: z.object({ amount: Decimal, asset: z.string(), chain: z.string() }),
    fees: z.object({
      networkFee: Decimal,
      processingFee: Decimal,
      paidBy: FeePayerEnum,
    }),
    conversionRate: z.string(),
    settlementCurrency: z.string(),
  })
  .openapi('PaymentEstimate')
/** The estimate of GET /payments/estimate. */
export type PaymentEstimate = z.infer<typeof PaymentEstimate>

/** A settlement of a session (spec "Settlement"); amounts in the settlement currency. */
export const Settlement = z
  .object({
    status: z.string().describe('completed'),
    entity: z.enum(['session', 'invoice']),
    reference: z.string(),
    balanceReference: z.string().describe('`reference` of the balance transactions it produced'),
    requested: z.object({ amount: Decimal, currency: z.string() }),
    gross: z.object({ currency: z.string(), amount: Decimal, conversionRate: z.string() }),
    customerPaid: z.object({ amount: Decimal }),
    fees: z.object({ processing: FeeLine, gas: FeeLine }),
    net: z.object({ amount: Decimal }),
  })
  .openapi('Settlement')
/** A settlement of a session. */
export type Settlement = z.infer<typeof Settlement>
