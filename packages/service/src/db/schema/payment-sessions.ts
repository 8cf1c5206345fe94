import type { ColumnType } from 'kysely'
import type { Numeric } from './ledger.js'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type NullableNumeric = ColumnType<string | null, bigint | string | null | undefined, bigint | string | null>
type DefaultNumeric = ColumnType<string, bigint | string | undefined, bigint | string>

/** `payment_session.state` (spec): open until a final outcome. */
export type SessionState = 'open' | 'closed'

/** `payment.status` of a session (docs/sessions.md "State machine"). */
export type SessionPaymentStatus =
  | 'pending'
  | 'confirming'
  | 'partial'
  | 'completed'
  | 'underpaid'
  | 'expired'
  | 'failed'

/** `payment_sessions`: a merchant's request for a fiat amount, paid in one crypto asset on one chain. */
export interface PaymentSessionsTable {
  id: string
  reference: string
  merchant_id: string
  environment: 'test' | 'live'
  response_format: 'current' | 'legacy'
  type: ColumnType<string, string | undefined, string>
  title: string
  description: string | null
  amount: Numeric
  currency: string
  asset: string | null
  chain: string | null
  network: string | null
  asset_decimals: number | null
  customer_id: string | null
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>
  cancel_url: string | null
  success_url: string | null
  webhook_url: string | null
  fee_payer: 'merchant' | 'customer'
  settlement_currency: string | null
  state: SessionState
  payment_status: SessionPaymentStatus
  address: string | null
  address_id: string | null
  conversion_rate: string | null
  base_amount: NullableNumeric
  processing_fee: NullableNumeric
  gas_fee: NullableNumeric
  crypto_amount: NullableNumeric
  amount_seen: DefaultNumeric
  amount_confirmed: DefaultNumeric
  tx_hash: string | null
  invoice_id: string | null
  page_reference: string | null
  refund_status: string | null
  is_refunded: ColumnType<boolean, boolean | undefined, boolean>
  is_underpayment_accepted: ColumnType<boolean, boolean | undefined, boolean>
  settles_in: string | null
  settlement_rate: string | null
  settled_gross: NullableNumeric
  settled_fees: NullableNumeric
  settled_at: Date | null
  rate_locked_at: Date | null
  expires_at: Timestamp
  completed_at: Date | null
  closed_at: Date | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** Status of a session's blockchain transaction: below the confirmation count, final, or removed by a reorg. */
export type SessionTransactionStatus = 'pending' | 'confirmed' | 'reverted'

/** `payment_session_transactions`: each incoming transfer to a session's address (spec "Blockchain transaction"). */
export interface PaymentSessionTransactionsTable {
  id: string
  session_id: string
  merchant_id: string
  environment: 'test' | 'live'
  incoming_transfer_id: string
  chain: string
  network: string
  asset: string
  tx_hash: string
  log_index: number
  from_address: string | null
  to_address: string
  amount: Numeric
  decimals: number
  status: SessionTransactionStatus
  confirmations: number
  aml_check: ColumnType<string, string | undefined, string>
  failure_reason: string | null
  attributed: boolean
  ledger_transaction_id: string | null
  ledger_currency: string | null
  ledger_amount: NullableNumeric
  confirmed_at: Date | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** The tables of migration `0008-payment-sessions`. */
export interface PaymentSessionsTables {
  payment_sessions: PaymentSessionsTable
  payment_session_transactions: PaymentSessionTransactionsTable
}
