import type { ColumnType, Generated } from 'kysely'
import type { Numeric } from './ledger.js'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** `swap_quotations`: a rate locked for 30 seconds, executed at most once (`executed_at`). */
export interface SwapQuotationsTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  from_currency: string
  to_currency: string
  source_amount: Numeric
  target_amount: Numeric
  fee: Numeric
  /** Quoted rate (8 decimals) after the swap spread; `reference_rate` is the FX rail's rate. */
  rate: string
  reference_rate: string
  expires_at: Timestamp
  executed_at: Timestamp | null
  created_at: ColumnType<Date, Date | string, never>
}

/** `swaps`: an executed quotation; its ledger transaction has idempotency key `swap:{quotation_id}`. */
export interface SwapsTable {
  id: string
  seq: Generated<string>
  merchant_id: string
  environment: 'test' | 'live'
  quotation_id: string
  from_currency: string
  to_currency: string
  source_amount: Numeric
  target_amount: Numeric
  fee: Numeric
  rate: string
  status: 'completed'
  webhook_url: string | null
  response_format: 'current' | 'legacy'
  created_at: ColumnType<Date, Date | string, never>
  completed_at: Timestamp | null
}

/** `deposit_accounts`: one per holder (the merchant's parent account, or one customer). */
export interface DepositAccountsTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  customer_id: string | null
  is_parent: boolean
  /** `default` or a ledger currency (docs/deposits.md "Settlement currency"). */
  settlement_currency: string
  status: 'active'
  response_format: 'current' | 'legacy'
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** `deposit_account_identities`: a static deposit address per chain, or an NGN virtual account. */
export interface DepositAccountIdentitiesTable {
  id: string
  deposit_account_id: string
  environment: 'test' | 'live'
  type: 'static_deposit_address' | 'ngn_virtual_account'
  chain: string | null
  address: string | null
  address_id: string | null
  currency: string | null
  account_number: string | null
  account_name: string | null
  bank_name: string | null
  bank_code: string | null
  account_reference: string | null
  created_at: ColumnType<Date, Date | string, never>
}

/** `deposits`: money received at a deposit account, once per incoming or inbound transfer. */
export interface DepositsTable {
  id: string
  seq: Generated<string>
  merchant_id: string
  environment: 'test' | 'live'
  deposit_account_id: string
  customer_id: string | null
  type: 'crypto' | 'fiat'
  status: 'pending' | 'completed' | 'failed'
  source_key: string
  currency: string
  amount: Numeric
  fee: Numeric
  net_amount: Numeric
  /** The spec's Conversion (decimal strings), or null when the deposit credits its own currency. */
  conversion: ColumnType<Record<string, string> | null, string | null, string | null>
  /** The spec's `crypto` part (API shape), or null. */
  crypto: ColumnType<Record<string, unknown> | null, string | null, string | null>
  /** The spec's `fiat` part (API shape), or null. */
  fiat: ColumnType<Record<string, unknown> | null, string | null, string | null>
  tx_hash: string | null
  chain: string | null
  ledger_transaction_id: string | null
  failure_reason: string | null
  response_format: 'current' | 'legacy'
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
  completed_at: Timestamp | null
}

/** The tables of migration `0010-deposits-swaps`. */
export interface DepositsSwapsTables {
  swap_quotations: SwapQuotationsTable
  swaps: SwapsTable
  deposit_accounts: DepositAccountsTable
  deposit_account_identities: DepositAccountIdentitiesTable
  deposits: DepositsTable
}
