import type { ColumnType, Generated } from 'kysely'
import type { Numeric } from './ledger.js'

/** `x402_transactions`: x402 payments settled through the merchant API, one per on-chain transaction. */
export interface X402TransactionsTable {
  id: string
  seq: Generated<string>
  merchant_id: string
  environment: 'test' | 'live'
  scheme: string
  network: string
  chain: string
  asset: string
  asset_address: string
  tx_hash: string
  status: 'confirmed' | 'pending' | 'failed'
  aml_check: string
  error_reason: string | null
  resource: string | null
  description: string | null
  payer: string | null
  pay_to: string
  amount: Numeric
  fee: Numeric
  credited: boolean
  block_number: string | null
  created_at: ColumnType<Date, Date | string, never>
}

/** `x402_payees`: external payTo addresses a merchant named in its requirements. */
export interface X402PayeesTable {
  merchant_id: string
  environment: 'test' | 'live'
  network: string
  address: string
  created_at: ColumnType<Date, Date | string, never>
}

/** The tables of migration `0011-x402`. */
export interface X402Tables {
  x402_transactions: X402TransactionsTable
  x402_payees: X402PayeesTable
}
