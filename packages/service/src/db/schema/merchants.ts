import type { ColumnType } from 'kysely'

/** A timestamptz column: read as `Date`, written as `Date` or ISO string, defaulted by the database. */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>

/** `merchants`: one row per merchant (tenant). */
export interface MerchantsTable {
  id: string
  name: string
  /** Registered business name; bank recipients must match it or `name`. */
  business_name: string | null
  logo_url: string | null
  /** Verified businesses may make cross-border payouts. */
  verified: ColumnType<boolean, boolean | undefined, boolean>
  /** Daily payout limit in micro-USD; null = the settings default (docs/payouts.md). */
  payout_daily_limit: ColumnType<string | null, bigint | string | null | undefined, bigint | string | null>
  created_at: CreatedAt
}

/** `api_keys`: SHA-256 of each key (hex) with its display prefix, environment and response format. */
export interface ApiKeysTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  format: ColumnType<'current' | 'legacy', 'current' | 'legacy' | undefined, never>
  key_hash: string
  prefix: string
  label: string | null
  created_at: CreatedAt
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** `idempotency_keys`: claimed `Idempotency-Key`s per merchant and environment with the stored response. */
export interface IdempotencyKeysTable {
  merchant_id: string
  environment: 'test' | 'live'
  key: string
  method: string
  path: string
  request_hash: string
  state: 'in_progress' | 'completed'
  response_status: number | null
  response_body: string | null
  created_at: ColumnType<Date, Date | string, never>
  expires_at: ColumnType<Date, Date | string, Date | string>
}

/** The tables of migration `0001-merchants`, to be merged into the service's `Database` type. */
export interface MerchantsTables {
  merchants: MerchantsTable
  api_keys: ApiKeysTable
  idempotency_keys: IdempotencyKeysTable
}
