import type { ColumnType, Generated } from 'kysely'

/**
 * A `NUMERIC(78,0)` amount in minor units: read as a decimal string (both drivers return NUMERIC as
 * text; the ledger converts with `BigInt`), written as a bigint.
 */
export type Numeric = ColumnType<string, bigint | string, bigint | string>

/** A counter column with a database default of 0. */
type Counter = ColumnType<string, bigint | string | undefined, bigint | string>

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** Phase of a ledger transfer (TigerBeetle): single-phase, or a pending transfer and its resolution. */
export type TransferPhase = 'single' | 'pending' | 'post' | 'void' | 'expire'

/** `ledger_accounts`: one account per (environment, chart code, currency) with its four counters. */
export interface LedgerAccountsTable {
  id: string
  environment: 'test' | 'live'
  code: string
  currency: string
  merchant_id: string | null
  debits_must_not_exceed_credits: boolean
  credits_must_not_exceed_debits: boolean
  debits_pending: Counter
  debits_posted: Counter
  credits_pending: Counter
  credits_posted: Counter
  created_at: ColumnType<Date, Date | string, never>
}

/** `ledger_transactions`: an atomic group of transfers, unique per (environment, idempotency key). */
export interface LedgerTransactionsTable {
  id: string
  environment: 'test' | 'live'
  idempotency_key: string
  request_hash: string
  source: string
  source_id: string | null
  source_reference: string | null
  reference: string | null
  description: string | null
  tx_hash: string | null
  created_at: ColumnType<Date, Date | string, never>
}

/** `ledger_transfers`: immutable (a trigger refuses UPDATE and DELETE); `pending_id` is unique. */
export interface LedgerTransfersTable {
  id: string
  transaction_id: string
  leg: number
  environment: 'test' | 'live'
  currency: string
  debit_account_id: string
  credit_account_id: string
  amount: Numeric
  phase: TransferPhase
  pending_id: string | null
  expires_at: Date | null
  created_at: ColumnType<Date, Date | string, never>
}

/** `balance_transactions`: the merchant-visible view of transfers that touch a merchant account. */
export interface BalanceTransactionsTable {
  id: string
  seq: Generated<string>
  merchant_id: string
  environment: 'test' | 'live'
  account_id: string
  transaction_id: string
  transfer_id: string
  source: string
  source_id: string | null
  source_reference: string | null
  reference: string | null
  description: string | null
  tx_hash: string | null
  direction: 'credit' | 'debit'
  status: 'pending' | 'completed' | 'voided'
  amount: Numeric
  currency: string
  before_available: Numeric
  before_pending: Numeric
  after_available: Numeric
  after_pending: Numeric
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** The tables of migration `0002-ledger`, merged into the service's `Database` type. */
export interface LedgerTables {
  ledger_accounts: LedgerAccountsTable
  ledger_transactions: LedgerTransactionsTable
  ledger_transfers: LedgerTransfersTable
  balance_transactions: BalanceTransactionsTable
}
