import type { ColumnType, Generated } from 'kysely'
import type { Numeric } from './ledger.js'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** `payment_pages`: a merchant's reusable hosted pages; each payment through one is a session. */
export interface PaymentPagesTable {
  id: string
  seq: Generated<string>
  reference: string
  merchant_id: string
  environment: 'test' | 'live'
  title: string
  description: string | null
  is_active: boolean
  currency: string
  min_amount: Numeric | null
  enable_quantity: boolean
  image_url: string | null
  /** JSON array of recipient ids (written as a JSON string). */
  bank_account_ids: ColumnType<string[], string, string>
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** `payment_page_products`: the products a page offers, at fixed prices in the page's currency. */
export interface PaymentPageProductsTable {
  id: string
  page_id: string
  title: string
  description: string | null
  price: Numeric
  is_active: boolean
  sort_order: number
  image_url: string | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** The tables of migration `0012-payment-pages`. */
export interface PaymentPagesTables {
  payment_pages: PaymentPagesTable
  payment_page_products: PaymentPageProductsTable
}
