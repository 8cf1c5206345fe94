import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** `customers`: a merchant's customers per environment, matched by e-mail (unique, case-insensitive). */
export interface CustomersTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  email: string | null
  first_name: string | null
  last_name: string | null
  phone: string | null
  telegram_id: string | null
  /** Free-form string values (stored as jsonb, written as a JSON string). */
  metadata: ColumnType<Record<string, string>, string | undefined, string>
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** The tables of migration `0003-customers`. */
export interface CustomersTables {
  customers: CustomersTable
}
