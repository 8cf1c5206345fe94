import type { ColumnType } from 'kysely'
import type { Numeric } from './ledger.js'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>
type Flag = ColumnType<boolean, boolean | undefined, boolean>
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>

/** A recipient type of the spec (the payout-only `zar_bank_account` is not creatable). */
export type RecipientType = 'crypto_address' | 'ngn_bank_account' | 'kes_mobile_money' | 'ghs_mobile_money'

/** `recipients`: a merchant's payout destinations (address book and temporary ones), soft-deleted. */
export interface RecipientsTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  type: RecipientType
  label: string
  is_default: Flag
  is_trusted: Flag
  is_temporary: Flag
  customer_id: string | null
  notes: string | null
  /** Unmasked resolved details (strings keyed by the spec's field names). */
  details: Json<Record<string, string | null>>
  fingerprint: string
  search_text: string
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** `payout_quotes`: cross-border quotes, used at most once before `expires_at`. */
export interface PayoutQuotesTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  currency: string
  source_currency: string
  source_amount: Numeric
  target_amount: Numeric
  rate: string
  fee: Numeric
  expires_at: Timestamp
  payout_id: Nullable<string>
  used_at: Nullable<Date>
  created_at: ColumnType<Date, Date | string, never>
}

/** Status of a payout (spec "States and transitions"). */
export type PayoutStatus = 'pending' | 'processing' | 'success' | 'failed'

/** Which rail a payout takes: NGN bank, crypto send, or KES/GHS mobile money funded by a stablecoin. */
export type PayoutKind = 'local_fiat' | 'crypto' | 'cross_border'

/** `payouts`: one row per payout; `amount`, `fee`, `total` in minor units of `currency` (the balance debited). */
export interface PayoutsTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  reference: string
  request_hash: string
  method: 'fiat' | 'crypto'
  kind: PayoutKind
  status: PayoutStatus
  currency: string
  amount: Numeric
  fee: Numeric
  total: Numeric
  /** The currency the recipient receives and its amount (equal to currency/amount without conversion). */
  target_currency: string
  target_amount: Numeric
  /** Conversion rate (target per source unit), null without conversion. */
  rate: string | null
  narration: string
  recipient_id: string
  /** Unmasked PayoutRecipient snapshot taken at creation. */
  recipient: Json<{ id: string | null; type: string; details: Record<string, string | null> }>
  channel: 'API' | 'dashboard'
  tx_hash: Nullable<string>
  failure_reason: Nullable<string>
  completed_at: Nullable<Date>
  quote_id: string | null
  webhook_url: string | null
  response_format: 'current' | 'legacy'
  ledger_transaction_id: Nullable<string>
  usd_equivalent: Numeric
  /** UTC day (`YYYY-MM-DD`) whose daily usage this payout counts in. */
  usage_day: string
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** `payout_daily_usage`: micro-USD paid out (or reserved) per merchant, environment and UTC day. */
export interface PayoutDailyUsageTable {
  merchant_id: string
  environment: 'test' | 'live'
  day: string
  used: Numeric
}

/** The tables of migration `0009-payouts`. */
export interface PayoutsTables {
  recipients: RecipientsTable
  payout_quotes: PayoutQuotesTable
  payouts: PayoutsTable
  payout_daily_usage: PayoutDailyUsageTable
}
