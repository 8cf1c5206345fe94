import { z } from '@hono/zod-openapi'
import { formatAtomicAmount } from '@tollgate/core'
import type { Selectable } from 'kysely'
import type { PaymentPageProductsTable, PaymentPagesTable } from '../db/schema/payment-pages.js'
import { fiatScale, sessionCurrencies } from '../payments/session-money.js'
import type { RecipientRow } from '../recipients/recipient.js'
import { maskAccountNumber } from '../recipients/recipient.js'

/** A `payment_pages` row. */
export type PaymentPageRow = Selectable<PaymentPagesTable>
/** A `payment_page_products` row. */
export type PaymentPageProductRow = Selectable<PaymentPageProductsTable>

/** A page row with what its responses embed: its products, bank recipients and merchant. */
export type PaymentPageView = {
  row: PaymentPageRow
  products: PaymentPageProductRow[]
  bankAccounts: RecipientRow[]
  merchant: { businessName: string; logoUrl: string | null }
}

const Money = z.string().regex(/^(0|[1-9]\d*)(\.\d+)?$/)
const Iso = z.string().describe('ISO 8601')
const HttpsUrl = z.string().min(1).max(2048).describe('HTTPS')
/** A positive JSON number of at most two decimals (the one place the API takes money as a number). */
// Above 10^14 a JSON number no longer holds every cent exactly, so no price can be larger.
const MoneyNumber = z.number().max(1e14).describe('greater than zero, at most 2 decimals, at most 10^14')

const Merchant = z.object({ businessName: z.string(), logoUrl: z.string().nullable() })

/** A bank account shown on a page for bank transfer (one of the merchant's NGN bank recipients). */
export const PaymentPageBankAccount = z
  .object({
    isTemporary: z.boolean(),
    notes: z.string().nullable(),
    id: z.string(),
    accountName: z.string().nullable(),
    accountNumber: z.string().nullable().describe('masked: all but the last four digits are *'),
    bankName: z.string().nullable(),
    bankCode: z.string().nullable(),
    accountType: z.string().nullable(),
    currency: z.string(),
    nickName: z.string(),
    default: z.boolean(),
    isTrusted: z.boolean(),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .openapi('PaymentPageBankAccount')

/** A product of a page. */
export const PaymentPageProduct = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    price: Money.describe('in the page currency'),
    isActive: z.boolean(),
    sortOrder: z.number().int(),
    imageUrl: z.string().nullable(),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .openapi('PaymentPageProduct')

/** A payment page (spec "Payment page"). */
export const PaymentPage = z
  .object({
    id: z.string(),
    reference: z.string(),
    merchant: Merchant,
    title: z.string(),
    description: z.string().nullable(),
    isActive: z.boolean(),
    currency: z.enum(sessionCurrencies),
    minAmount: Money.nullable().describe('least amount a customer may pay (open amount or order total)'),
    enableQuantity: z.boolean(),
    bankAccounts: z.array(PaymentPageBankAccount),
    products: z.array(PaymentPageProduct).describe('by sortOrder'),
    imageUrl: z.string().nullable(),
    url: z.string().describe('the hosted page: {publicBaseUrl}/pay/{reference}'),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .openapi('PaymentPage')

/** The public view of GET /payments/pages/{reference}/sessions: only what the hosted page shows. */
export const PublicPaymentPage = z
  .object({
    merchant: Merchant,
    title: z.string(),
    description: z.string().nullable(),
    currency: z.enum(sessionCurrencies),
    minAmount: Money.nullable(),
    enableQuantity: z.boolean(),
    products: z
      .array(
        z.object({
          id: z.string(),
          title: z.string(),
          price: Money,
          description: z.string().nullable(),
          sortOrder: z.number().int(),
          imageUrl: z.string().nullable(),
        }),
      )
      .describe('active products only, by sortOrder'),
    bankAccounts: z.array(
      z.object({
        id: z.string(),
        accountName: z.string().nullable(),
        accountNumber: z.string().nullable().describe('masked'),
        bankName: z.string().nullable(),
      }),
    ),
    imageUrl: z.string().nullable(),
    url: z.string(),
    isActive: z.boolean().describe('false: the page takes no payments (it says so)'),
  })
  .openapi('PublicPaymentPage')

const ProductInput = z
  .object({
    id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('PATCH only: keep this existing product (its id) and update it'),
    title: z.string().trim().min(1).max(100),
    description: z.string().max(500).optional(),
    price: MoneyNumber,
    isActive: z.boolean().default(true),
    sortOrder: z.number().int().min(0).max(10_000).optional().describe('default: position in the list'),
    imageUrl: HttpsUrl.optional(),
  })
  .strict()

const pageFields = {
  title: z.string().trim().min(1).max(50),
  description: z.string().max(1000).nullable(),
  isActive: z.boolean(),
  minAmount: MoneyNumber.nullable(),
  currency: z.enum(sessionCurrencies),
  bankAccountIds: z
    .array(z.string().min(1).max(100))
    .max(10)
    .describe('ids of the merchant’s NGN bank recipients (NGN pages only)'),
  enableQuantity: z.boolean().describe('only valid when the page has products'),
  products: z.array(ProductInput).max(50).describe('replaces the list on PATCH'),
  imageUrl: HttpsUrl.nullable(),
}

/** Body of POST /payments/pages. */
export const CreatePaymentPageBody = z
  .object({
    ...pageFields,
    description: pageFields.description.optional(),
    isActive: pageFields.isActive.default(true),
    minAmount: pageFields.minAmount.optional(),
    bankAccountIds: pageFields.bankAccountIds.default([]),
    enableQuantity: pageFields.enableQuantity.default(false),
    products: pageFields.products.default([]),
    imageUrl: pageFields.imageUrl.optional(),
  })
  .strict()
  .openapi('CreatePaymentPageBody')
/** Body of POST /payments/pages. */
export type CreatePaymentPageBody = z.infer<typeof CreatePaymentPageBody>

/** Body of PATCH /payments/pages/{id}: the create fields, all optional (null clears a nullable one). */
export const UpdatePaymentPageBody = z
  .object({
    title: pageFields.title.optional(),
    description: pageFields.description.optional(),
    isActive: pageFields.isActive.optional(),
    minAmount: pageFields.minAmount.optional(),
    currency: pageFields.currency.optional(),
    bankAccountIds: pageFields.bankAccountIds.optional(),
    enableQuantity: pageFields.enableQuantity.optional(),
    products: pageFields.products.optional(),
    imageUrl: pageFields.imageUrl.optional(),
  })
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give at least one field',
  })
  .openapi('UpdatePaymentPageBody')
/** Body of PATCH /payments/pages/{id}. */
export type UpdatePaymentPageBody = z.infer<typeof UpdatePaymentPageBody>

/** A product of a request body. */
export type ProductInput = z.infer<typeof ProductInput>

/** Formats minor units of a page currency (`150000n` → `"1500.00"`). */
export function formatPageAmount(minor: bigint | string): string {
  return formatAtomicAmount(BigInt(minor), fiatScale)
}

/** The hosted page's URL of a page reference. */
export function toPageUrl(publicBaseUrl: string, reference: string): string {
  return `${publicBaseUrl}/pay/${encodeURIComponent(reference)}`
}

const toProduct = (p: PaymentPageProductRow) => ({
  id: p.id,
  title: p.title,
  description: p.description,
  price: formatPageAmount(p.price),
  isActive: p.is_active,
  sortOrder: p.sort_order,
  imageUrl: p.image_url,
  createdAt: p.created_at.toISOString(),
  updatedAt: p.updated_at.toISOString(),
})

const toBankAccount = (r: RecipientRow) => ({
  isTemporary: r.is_temporary,
  notes: r.notes,
  id: r.id,
  accountName: r.details.accountName ?? null,
  accountNumber: r.details.accountNumber ? maskAccountNumber(r.details.accountNumber) : null,
  bankName: r.details.bankName ?? null,
  bankCode: r.details.bankCode ?? null,
  accountType: r.details.accountType ?? null,
  currency: 'NGN',
  nickName: r.label,
  default: r.is_default,
  isTrusted: r.is_trusted,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
})

/** The API's {@link PaymentPage} of a view. */
export function toPaymentPageResponse(publicBaseUrl: string, view: PaymentPageView): PaymentPage {
  const { row } = view
  return {
    id: row.id,
    reference: row.reference,
    merchant: view.merchant,
    title: row.title,
    description: row.description,
    isActive: row.is_active,
    currency: row.currency as PaymentPage['currency'],
    minAmount: row.min_amount === null ? null : formatPageAmount(row.min_amount),
    enableQuantity: row.enable_quantity,
    bankAccounts: view.bankAccounts.map(toBankAccount),
    products: view.products.map(toProduct),
    imageUrl: row.image_url,
    url: toPageUrl(publicBaseUrl, row.reference),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}
/** A payment page in responses. */
export type PaymentPage = z.infer<typeof PaymentPage>

/** The {@link PublicPaymentPage} of a view: active products only, bank accounts reduced and masked. */
export function toPublicPaymentPage(publicBaseUrl: string, view: PaymentPageView): PublicPaymentPage {
  const page = toPaymentPageResponse(publicBaseUrl, view)
  return {
    merchant: page.merchant,
    title: page.title,
    description: page.description,
    currency: page.currency,
    minAmount: page.minAmount,
    enableQuantity: page.enableQuantity,
    products: page.products
      .filter((p) => p.isActive)
      .map(({ id, title, price, description, sortOrder, imageUrl }) => ({
        id,
        title,
        price,
        description,
        sortOrder,
        imageUrl,
      })),
    bankAccounts: page.bankAccounts.map(({ id, accountName, accountNumber, bankName }) => ({
      id,
      accountName,
      accountNumber,
      bankName,
    })),
    imageUrl: page.imageUrl,
    url: page.url,
    isActive: page.isActive,
  }
}
/** The public view of a page. */
export type PublicPaymentPage = z.infer<typeof PublicPaymentPage>
