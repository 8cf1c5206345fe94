import { isAppError, parseDollarPrice } from '@tollgate/core'
import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { assertSessionUrl, toFieldError } from '../payments/assert-session-input.js'
import { fiatScale } from '../payments/session-money.js'
import { findPaymentPage, toPaymentPageView } from './load-payment-page.js'
import type {
  CreatePaymentPageBody,
  PaymentPageView,
  ProductInput,
  UpdatePaymentPageBody,
} from './payment-page.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Parses a money number of a request (`minAmount`, a product `price`) into minor units, or a 400 on `field`. */
export function parsePageMoney(value: number, field: string): bigint {
  try {
    // Read through the number's shortest decimal form, never multiplied as a float.
    return parseDollarPrice(value, fiatScale)
  } catch (error) {
    if (isAppError(error, 'invalid_amount')) {
      throw toFieldError(field, 'must be greater than zero with at most 2 decimals')
    }
    throw error
  }
}

/**
 * Creates a payment page with its products (docs/payment-pages.md). Every rule is checked before
 * anything is written: products and `enableQuantity`, bank accounts (the merchant's own NGN bank
 * recipients, NGN pages only), HTTPS image URLs and money with at most 2 decimals.
 */
export async function createPaymentPage(
  deps: Deps,
  input: Scope & { body: CreatePaymentPageBody },
): Promise<PaymentPageView> {
  const { body } = input
  const minAmount = body.minAmount == null ? null : parsePageMoney(body.minAmount, 'minAmount')
  const products = checkProducts(deps, input.environment, body.products, new Set())
  assertPageRules(body.enableQuantity, products.length, body.currency, body.bankAccountIds)
  assertSessionUrl(deps.settings, input.environment, 'imageUrl', body.imageUrl ?? undefined)
  await assertBankAccounts(deps, input, body.bankAccountIds)
  const now = deps.clock.now()
  const row = await inTransaction(deps.db, async (trx) => {
    const page = await trx
      .insertInto('payment_pages')
      .values({
        id: deps.ids.create('ppg'),
        reference: deps.ids.create('pl'),
        merchant_id: input.merchantId,
        environment: input.environment,
        title: body.title,
        description: body.description ?? null,
        is_active: body.isActive,
        currency: body.currency,
        min_amount: minAmount,
        enable_quantity: body.enableQuantity,
        image_url: body.imageUrl ?? null,
        bank_account_ids: JSON.stringify(body.bankAccountIds),
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await writeProducts(trx, deps, page.id, products, now)
    return page
  })
  return toPaymentPageView(deps.db, row)
}

/**
 * Changes a page: given fields replace the stored ones (`products` replaces the list: an item with
 * the `id` of one of the page's products keeps that product, the others are new, the rest removed).
 * The rules of {@link createPaymentPage} are checked on the result.
 */
export async function updatePaymentPage(
  deps: Deps,
  input: Scope & { id: string; body: UpdatePaymentPageBody },
): Promise<PaymentPageView> {
  const { body } = input
  const current = await findPaymentPage(deps.db, { ...input })
  const minAmount =
    body.minAmount === undefined
      ? current.min_amount
      : body.minAmount === null
        ? null
        : parsePageMoney(body.minAmount, 'minAmount')
  const existing = await deps.db
    .selectFrom('payment_page_products')
    .select('id')
    .where('page_id', '=', current.id)
    .execute()
  const products =
    body.products === undefined
      ? undefined
      : checkProducts(deps, input.environment, body.products, new Set(existing.map((p) => p.id)))
  const currency = body.currency ?? current.currency
  const bankAccountIds = body.bankAccountIds ?? current.bank_account_ids
  const enableQuantity = body.enableQuantity ?? current.enable_quantity
  assertPageRules(enableQuantity, products?.length ?? existing.length, currency, bankAccountIds)
  assertSessionUrl(deps.settings, input.environment, 'imageUrl', body.imageUrl ?? undefined)
  if (body.bankAccountIds !== undefined) {
    await assertBankAccounts(deps, input, body.bankAccountIds)
  }
  const now = deps.clock.now()
  const row = await inTransaction(deps.db, async (trx) => {
    const page = await trx
      .updateTable('payment_pages')
      .set({
        ...(body.title === undefined ? {} : { title: body.title }),
        ...(body.description === undefined ? {} : { description: body.description }),
        ...(body.isActive === undefined ? {} : { is_active: body.isActive }),
        ...(body.imageUrl === undefined ? {} : { image_url: body.imageUrl }),
        min_amount: minAmount,
        currency,
        enable_quantity: enableQuantity,
        bank_account_ids: JSON.stringify(bankAccountIds),
        updated_at: now,
      })
      .where('id', '=', current.id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirstOrThrow()
    if (products) {
      const kept = products.flatMap((p) => (p.id ? [p.id] : []))
      let removed = trx.deleteFrom('payment_page_products').where('page_id', '=', current.id)
      if (kept.length > 0) {
        removed = removed.where('id', 'not in', kept)
      }
      await removed.execute()
      await writeProducts(trx, deps, current.id, products, now)
    }
    return page
  })
  return toPaymentPageView(deps.db, row)
}

/** Deletes a page: its url then shows that it was removed, and its public view is a 404. */
export async function deletePaymentPage(deps: Deps, input: Scope & { id: string }): Promise<void> {
  const current = await findPaymentPage(deps.db, input)
  const now = deps.clock.now()
  await deps.db
    .updateTable('payment_pages')
    .set({ deleted_at: now, is_active: false, updated_at: now })
    .where('id', '=', current.id)
    .execute()
}

type CheckedProduct = Omit<ProductInput, 'price'> & { price: bigint; sortOrder: number }

function checkProducts(
  deps: Pick<Deps, 'settings'>,
  environment: KeyEnvironment,
  products: ProductInput[],
  existingIds: Set<string>,
): CheckedProduct[] {
  const seen = new Set<string>()
  return products.map((product, index) => {
    if (product.id !== undefined && (!existingIds.has(product.id) || seen.has(product.id))) {
      throw toFieldError(`products.${index}.id`, 'must be the id of one of this page’s products, once')
    }
    if (product.id !== undefined) {
      seen.add(product.id)
    }
    assertSessionUrl(deps.settings, environment, `products.${index}.imageUrl`, product.imageUrl)
    return {
      ...product,
      price: parsePageMoney(product.price, `products.${index}.price`),
      sortOrder: product.sortOrder ?? index,
    }
  })
}

function assertPageRules(
  enableQuantity: boolean,
  productCount: number,
  currency: string,
  bankAccountIds: string[],
): void {
  if (enableQuantity && productCount === 0) {
    throw toFieldError('enableQuantity', 'is only valid when the page has products')
  }
  if (bankAccountIds.length > 0 && currency !== 'NGN') {
    throw toFieldError('bankAccountIds', 'bank transfer is offered on NGN pages only')
  }
  if (new Set(bankAccountIds).size !== bankAccountIds.length) {
    throw toFieldError('bankAccountIds', 'must not repeat an id')
  }
}

async function assertBankAccounts(deps: Pick<Deps, 'db'>, scope: Scope, ids: string[]): Promise<void> {
  if (ids.length === 0) {
    return
  }
  const found = await deps.db
    .selectFrom('recipients')
    .select('id')
    .where('id', 'in', ids)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('type', '=', 'ngn_bank_account')
    .where('deleted_at', 'is', null)
    .execute()
  const missing = ids.find((id) => !found.some((f) => f.id === id))
  if (missing !== undefined) {
    throw toFieldError('bankAccountIds', `${missing} is not one of your NGN bank recipients`)
  }
}

async function writeProducts(
  trx: Kysely<Database>,
  deps: Pick<Deps, 'ids'>,
  pageId: string,
  products: CheckedProduct[],
  now: Date,
): Promise<void> {
  for (const p of products) {
    const fields = {
      title: p.title,
      description: p.description ?? null,
      price: p.price,
      is_active: p.isActive,
      sort_order: p.sortOrder,
      image_url: p.imageUrl ?? null,
      updated_at: now,
    }
    if (p.id) {
      await trx
        .updateTable('payment_page_products')
        .set(fields)
        .where('id', '=', p.id)
        .where('page_id', '=', pageId)
        .execute()
    } else {
      await trx
        .insertInto('payment_page_products')
        .values({ id: deps.ids.create('prod'), page_id: pageId, created_at: now, ...fields })
        .execute()
    }
  }
}
