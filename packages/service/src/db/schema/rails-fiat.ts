import type { ColumnType } from 'kysely'
import type { Numeric } from './ledger.js'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** `sandbox_fx_rates`: rates set through the sandbox route, overriding the built-in table per currency. */
export interface SandboxFxRatesTable {
  currency: string
  usd_numerator: Numeric
  usd_denominator: Numeric
  spread_bps: number
  updated_at: Timestamp
}

/** `sandbox_fiat_transfers`: the simulated bank / mobile-money provider's transfers, keyed by our id. */
export interface SandboxFiatTransfersTable {
  id: string
  rail: 'bank' | 'mobile_money'
  provider_reference: string
  merchant_id: string | null
  currency: string
  amount: Numeric
  account_number: string
  account_name: string
  institution_code: string
  institution_name: string
  narration: string
  status: 'processing' | 'success' | 'failed'
  planned_outcome: 'success' | 'failed' | 'held'
  failure_reason: string | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
  completed_at: Timestamp | null
}

/** `sandbox_virtual_accounts`: NGN virtual accounts the simulated provider issued. */
export interface SandboxVirtualAccountsTable {
  account_reference: string
  merchant_id: string | null
  environment: 'test' | 'live' | null
  bvn_hash: string
  account_number: string
  account_name: string
  bank_code: string
  bank_name: string
  created_at: ColumnType<Date, Date | string, never>
}

/** `sandbox_inbound_transfers`: NGN transfers received into virtual accounts, once per reference. */
export interface SandboxInboundTransfersTable {
  id: string
  account_reference: string
  environment: 'test' | 'live'
  amount: Numeric
  currency: string
  reference: string
  payer_account_name: string
  payer_account_number: string
  payer_bank_name: string
  payer_bank_code: string
  received_at: ColumnType<Date, Date | string, never>
}

/** The tables of migration `0007-rails-fiat`. */
export interface RailsFiatTables {
  sandbox_fx_rates: SandboxFxRatesTable
  sandbox_fiat_transfers: SandboxFiatTransfersTable
  sandbox_virtual_accounts: SandboxVirtualAccountsTable
  sandbox_inbound_transfers: SandboxInboundTransfersTable
}
