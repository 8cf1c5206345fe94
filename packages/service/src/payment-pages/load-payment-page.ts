import { AppError } from '@tollgate/core'
import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { selectPage } from '../db/select-page.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { PageQuery } from '../http/pagination.js'
import type { PaymentPageRow, PaymentPageView } from './payment-page.js'

type Db = Kysely<Database>

/** A merchant's page by id (deleted pages are gone), or 404 `not_found`. */
export async function findPaymentPage(
  db: Db,
  scope: { merchantId: string; environment: KeyEnvironment; id: string },
): Promise<PaymentPageRow> {
  const row = await db
    .selectFrom('payment_pages')
    .selectAll()
    .where('id', '=', scope.id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', {
      message: `Payment page ${scope.id} not found`,
      context: { param: 'id' },
    })
  }
  return row
}

/** The page behind a public reference (any merchant, deleted ones included), or 404 `not_found`. */
export async function findPublicPaymentPage(db: Db, reference: string): Promise<PaymentPageRow> {
  const row = await db
    .selectFrom('payment_pages')
    .selectAll()
    .where('reference', '=', reference)
    .executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', { message: 'Payment page not found', context: { param: 'reference' } })
  }
  return row
}

/** Filters of GET /payments/pages. */
export type PaymentPageFilters = { search?: string | undefined; isActive?: boolean | undefined }

/** A page of the merchant's pages (deleted ones excluded), newest first, and how many match. */
export async function listPaymentPages(
  db: Db,
  input: { merchantId: string; environment: KeyEnvironment } & PaymentPageFilters & PageQuery,
): Promise<{ items: PaymentPageView[]; total: number }> {
  let query = db
    .selectFrom('payment_pages')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('deleted_at', 'is', null)
  if (input.search) {
    const escaped = input.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)
    query = query.where((eb) => eb(eb.fn('lower', ['title']), 'like', `%${escaped}%`))
  }
  if (input.isActive !== undefined) {
    query = query.where('is_active', '=', input.isActive)
  }
  const { rows, total } = await selectPage(query, { ...input, orderBy: 'seq' })
  return { items: await toPaymentPageViews(db, rows), total }
}

/** Reads what page responses embed (products, bank recipients, merchant) for `rows`, in a few queries. */
export async function toPaymentPageViews(db: Db, rows: PaymentPageRow[]): Promise<PaymentPageView[]> {
  if (rows.length === 0) {
    return []
  }
  const pageIds = rows.map((r) => r.id)
  const bankIds = [...new Set(rows.flatMap((r) => r.bank_account_ids))]
  const merchantIds = [...new Set(rows.map((r) => r.merchant_id))]
  const [products, banks, merchants] = await Promise.all([
    db
      .selectFrom('payment_page_products')
      .selectAll()
      .where('page_id', 'in', pageIds)
      .orderBy('sort_order')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    bankIds.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('recipients')
          .selectAll()
          .where('id', 'in', bankIds)
          .where('deleted_at', 'is', null)
          .execute(),
    db
      .selectFrom('merchants')
      .select(['id', 'name', 'business_name', 'logo_url'])
      .where('id', 'in', merchantIds)
      .execute(),
  ])
  return rows.map((row) => {
    const merchant = merchants.find((m) => m.id === row.merchant_id)
    return {
      row,
      products: products.filter((p) => p.page_id === row.id),
      // In the page's order; a recipient removed since is no longer shown.
      bankAccounts: row.bank_account_ids.flatMap((id) => {
        const bank = banks.find((b) => b.id === id && b.merchant_id === row.merchant_id)
        return bank ? [bank] : []
      }),
      merchant: {
        businessName: merchant?.business_name ?? merchant?.name ?? '',
        logoUrl: merchant?.logo_url ?? null,
      },
    }
  })
}

/** The view of one page row. */
export async function toPaymentPageView(db: Db, row: PaymentPageRow): Promise<PaymentPageView> {
  return (await toPaymentPageViews(db, [row]))[0] as PaymentPageView
}
