import type { ColumnType, Generated } from 'kysely'
import type { Numeric } from './ledger.js'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Environment = 'test' | 'live'

/** `address_counters`: the next HD index per derivation branch (`<environment>:<coin>:<purpose>`). */
export interface AddressCountersTable {
  branch: string
  next_index: ColumnType<string, bigint | string, bigint | string>
}

/** `deposit_addresses`: HD-derived receiving addresses, one per (purpose, owner, chain), never reused. */
export interface DepositAddressesTable {
  id: string
  seq: Generated<string>
  merchant_id: string
  environment: Environment
  chain: string
  network: string
  address: string
  purpose: 'session' | 'deposit' | 'x402'
  owner_id: string
  derivation_path: string
  created_at: ColumnType<Date, Date | string, never>
}

/** `incoming_transfers`: transfers to deposit addresses, once per (network, tx hash, log index). */
export interface IncomingTransfersTable {
  id: string
  environment: Environment
  chain: string
  network: string
  asset: string
  amount: Numeric
  decimals: number
  tx_hash: string
  log_index: number
  from_address: string | null
  to_address: string
  block_number: ColumnType<string | null, bigint | string | null, bigint | string | null>
  block_hash: string | null
  confirmations: number
  status: 'seen' | 'confirmed' | 'reverted'
  address_id: string
  seen_at: ColumnType<Date, Date | string, never>
  confirmed_at: Timestamp | null
  reverted_at: Timestamp | null
  updated_at: Timestamp
}

/** `chain_cursors`: per network, the last block a watcher fully recorded. */
export interface ChainCursorsTable {
  network: string
  block_number: ColumnType<string, bigint | string, bigint | string>
  block_hash: string | null
  updated_at: Timestamp
}

/** `crypto_sends`: outbound treasury transfers, claimed once per (environment, idempotency key) before broadcast. */
export interface CryptoSendsTable {
  id: string
  environment: Environment
  idempotency_key: string
  chain: string
  network: string
  asset: string
  to_address: string
  source_address_id: ColumnType<string | null, string | null | undefined, string | null>
  amount: Numeric
  status: 'pending' | 'confirmed' | 'failed'
  tx_hashes: ColumnType<string[], string | undefined, string>
  tx_hash: string | null
  failure_reason: string | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
  /** Migration 0013: Solana transactions signed for this send, each recorded before its broadcast. */
  attempts: ColumnType<SolanaSendAttempt[], string | undefined, string>
  /** Migration 0013: the process driving this pending send, until `lease_until`. */
  lease_owner: string | null
  lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>
}

/** One signed Solana transaction of a send: its id, the block height after which it can never land, wire bytes. */
export type SolanaSendAttempt = { signature: string; lastValidBlockHeight: string; wire: string }

/** The tables of migration `0006-rails-chain`. */
export interface RailsChainTables {
  address_counters: AddressCountersTable
  deposit_addresses: DepositAddressesTable
  incoming_transfers: IncomingTransfersTable
  chain_cursors: ChainCursorsTable
  crypto_sends: CryptoSendsTable
}
