import { randomBytes } from 'node:crypto'
import { z } from '@hono/zod-openapi'
import { isAppError, parseDecimalAmount } from '@tollgate/core'
import { type Context, Hono } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { createClientIpReader } from '../checkout/client-ip.js'
import { createHostedFormBody, defaultHostedFormLimitBytes } from '../checkout/hosted-form-body.js'
import { toHostedCsp } from '../checkout/hosted-layout.js'
import {
  assertSameOrigin,
  type CheckoutRoutesOptions,
  hostedHeaders,
  renderHostedError,
} from '../checkout/routes.js'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { createRateLimitMiddleware } from '../http/rate-limit.js'
import { createPaymentSession } from '../payments/create-payment-session.js'
import { fiatScale } from '../payments/session-money.js'
import {
  type PageFormErrors,
  type PageFormValues,
  PaymentPageView,
  RemovedPaymentPage,
} from './hosted-page.js'
import { findPublicPaymentPage, toPaymentPageView } from './load-payment-page.js'
import { formatPageAmount, type PublicPaymentPage, toPublicPaymentPage } from './payment-page.js'

const maxQuantity = 999
const Email = z.email().max(254)

/**
 * The hosted payment pages at `/pay/{reference}` (docs/payment-pages.md): no API key, the hosted
 * pages' per-IP limit. GET shows the page; POST checks the customer's choice, creates a payment
 * session for it and continues to that session's checkout.
 */
export function createHostedPaymentPageRoutes(
  deps: Deps,
  options: CheckoutRoutesOptions & Required<Pick<CheckoutRoutesOptions, 'rateLimiter'>>,
) {
  const app = new Hono<AppEnv>()
  app.onError((error, c) => renderHostedError(c, error))
  app.use(
    '/pay/*',
    createRateLimitMiddleware(options.rateLimiter, createClientIpReader(deps.settings.trustedProxies)),
  )
  app.use('/pay/*', hostedHeaders)
  app.use(
    '/pay/*',
    createHostedFormBody({ limitBytes: options.formLimitBytes ?? defaultHostedFormLimitBytes }),
  )

  const load = async (reference: string) => {
    const row = await findPublicPaymentPage(deps.db, reference)
    if (row.deleted_at !== null) {
      return { row, page: null }
    }
    const page = toPublicPaymentPage(deps.settings.publicBaseUrl, await toPaymentPageView(deps.db, row))
    return { row, page }
  }

  app.get('/pay/:reference', async (c) => {
    const reference = c.req.param('reference')
    const { row, page } = await load(reference)
    return render(c, page, { reference, testMode: row.environment === 'test' })
  })

  app.post('/pay/:reference', async (c) => {
    assertSameOrigin(c, deps.settings.publicBaseUrl)
    const reference = c.req.param('reference')
    const { row, page } = await load(reference)
    const view = { reference, testMode: row.environment === 'test' }
    if (!page?.isActive) {
      return render(c, page, view, 409)
    }
    const form = readForm(page, await c.req.parseBody())
    if ('errors' in form) {
      return render(c, page, { ...view, values: form.values, errors: form.errors }, 400)
    }
    try {
      const session = await createPaymentSession(deps, {
        merchantId: row.merchant_id,
        environment: row.environment,
        format: 'current',
        pageReference: reference,
        body: {
          title: page.title,
          description: (form.summary || page.description || page.title).slice(0, 1000),
          amount: formatPageAmount(form.amount),
          currency: page.currency,
          metadata: { paymentPage: reference, items: form.items },
          ...(form.customer ? { customer: form.customer } : {}),
        },
      })
      return c.redirect(`/checkout/${encodeURIComponent(session.row.reference)}`, 303)
    } catch (error) {
      if (!isAppError(error, 'validation_error')) {
        throw error
      }
      const errors = { form: 'This payment could not be started. Check your entries and try again.' }
      return render(c, page, { ...view, values: form.values, errors }, 400)
    }
  })
  return app
}

type ReadForm =
  | { values: PageFormValues; errors: PageFormErrors }
  | {
      values: PageFormValues
      amount: bigint
      summary: string
      items: { productId: string; title: string; quantity: number; price: string }[]
      customer: { email: string; firstName?: string; lastName?: string } | null
    }

// Reads and checks the form against the page; every refusal names its field for the customer.
function readForm(page: PublicPaymentPage, body: Record<string, unknown>): ReadForm {
  const text = (name: string) => {
    const value = body[name]
    return typeof value === 'string' ? value.trim().slice(0, 254) : ''
  }
  const values: PageFormValues = {
    amount: text('amount'),
    quantities: Object.fromEntries(page.products.map((p) => [p.id, text(`qty:${p.id}`)])),
    email: text('email'),
    firstName: text('firstName').slice(0, 100),
    lastName: text('lastName').slice(0, 100),
  }
  const errors: PageFormErrors = {}
  let amount = 0n
  const items: Extract<ReadForm, { amount: bigint }>['items'] = []
  const min = page.minAmount === null ? 0n : parseDecimalAmount(page.minAmount, fiatScale)
  if (page.products.length > 0) {
    for (const p of page.products) {
      const raw = values.quantities[p.id] || '0'
      const quantity = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN
      if (!Number.isInteger(quantity) || quantity > maxQuantity) {
        errors.products = `Enter a whole quantity from 0 to ${maxQuantity} for ${p.title}.`
        continue
      }
      if (quantity > 0) {
        amount += parseDecimalAmount(p.price, fiatScale) * BigInt(quantity)
        items.push({ productId: p.id, title: p.title, quantity, price: p.price })
      }
    }
    if (!errors.products && items.length === 0) {
      errors.products = 'Choose at least one item.'
    } else if (!errors.products && amount < min) {
      errors.products = `The order must come to at least ${page.minAmount} ${page.currency}.`
    }
  } else {
    amount = parseEntered(values.amount) ?? -1n
    if (amount <= 0n) {
      errors.amount = `Enter an amount in ${page.currency}, like 1500 or 1500.50.`
    } else if (amount < min) {
      errors.amount = `The least you can pay is ${page.minAmount} ${page.currency}.`
    }
  }
  if (values.email && !Email.safeParse(values.email).success) {
    errors.email = 'Enter an email address like name@example.com, or leave it empty.'
  }
  if (Object.keys(errors).length > 0) {
    return { values, errors }
  }
  const summary = items.map((i) => `${i.quantity} × ${i.title}`).join(', ')
  const customer = values.email
    ? {
        email: values.email,
        ...(values.firstName ? { firstName: values.firstName } : {}),
        ...(values.lastName ? { lastName: values.lastName } : {}),
      }
    : null
  return { values, amount, summary, items, customer }
}

// A typed amount: digits with an optional 1-2 decimal fraction; thousands separators allowed.
function parseEntered(value: string): bigint | null {
  const plain = value.replace(/[,\s]/g, '')
  if (plain.length === 0 || plain.length > 15) {
    return null
  }
  try {
    return parseDecimalAmount(plain, fiatScale)
  } catch {
    return null
  }
}

function render(
  c: Context<AppEnv>,
  page: PublicPaymentPage | null,
  view: { reference: string; testMode: boolean; values?: PageFormValues; errors?: PageFormErrors },
  status: ContentfulStatusCode = 200,
) {
  const nonce = randomBytes(16).toString('base64')
  c.header('Content-Security-Policy', toHostedCsp(nonce))
  if (!page) {
    return c.html(<RemovedPaymentPage nonce={nonce} />, 410)
  }
  return c.html(<PaymentPageView page={page} nonce={nonce} {...view} />, status)
}
