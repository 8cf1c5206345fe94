import { HostedLayout } from '../checkout/hosted-layout.js'
import type { PublicPaymentPage } from './payment-page.js'

/** What the customer typed into a payment page's form (kept to re-show it with errors). */
export type PageFormValues = {
  amount: string
  /** Quantity text per product id (`"1"` for a ticked box without quantities). */
  quantities: Record<string, string>
  email: string
  firstName: string
  lastName: string
}

/** Per-field error messages of a refused form (`products` covers the product choice). */
export type PageFormErrors = Partial<Record<'amount' | 'products' | 'email' | 'form', string>>

/** Props of {@link PaymentPageView}. */
export type PaymentPageViewProps = {
  page: PublicPaymentPage
  reference: string
  testMode: boolean
  nonce: string
  values?: PageFormValues
  errors?: PageFormErrors
}

/** The hosted payment page (docs/payment-pages.md): the merchant's offer and the form that starts a session. */
export function PaymentPageView(props: PaymentPageViewProps) {
  const { page } = props
  return (
    <HostedLayout title={`Pay ${page.merchant.businessName}: ${page.title}`} nonce={props.nonce}>
      <section class="card" aria-labelledby="title">
        <PageHeader page={page} testMode={props.testMode} />
        {page.imageUrl ? <img class="hero" src={page.imageUrl} alt="" /> : null}
        <h1 id="title">{page.title}</h1>
        {page.description ? <p>{page.description}</p> : null}
      </section>
      {page.isActive ? (
        <PayForm {...props} />
      ) : (
        <section class="card">
          <p id="status" class="status" role="status" data-status="expired">
            This page is not accepting payments right now.
          </p>
        </section>
      )}
      {page.isActive && page.bankAccounts.length > 0 ? <BankAccounts page={page} /> : null}
      <footer>Payment page {props.reference}</footer>
    </HostedLayout>
  )
}

/** The page shown at the url of a deleted payment page. */
export function RemovedPaymentPage(props: { nonce: string }) {
  return (
    <HostedLayout title="Payment page removed" nonce={props.nonce}>
      <section class="card">
        <h1>Payment page removed</h1>
        <p id="status" class="status" role="status" data-status="expired">
          This payment page has been removed by the merchant.
        </p>
      </section>
    </HostedLayout>
  )
}

function PageHeader(props: { page: PublicPaymentPage; testMode: boolean }) {
  const { merchant } = props.page
  return (
    <header>
      {merchant.logoUrl ? <img src={merchant.logoUrl} alt="" /> : null}
      <span class="merchant">{merchant.businessName}</span>
      {props.testMode ? <span class="badge">Test mode</span> : null}
    </header>
  )
}

function PayForm(props: PaymentPageViewProps) {
  const { page } = props
  const errors = props.errors ?? {}
  const values = props.values ?? { amount: '', quantities: {}, email: '', firstName: '', lastName: '' }
  return (
    <form class="card" method="post" action={`/pay/${encodeURIComponent(props.reference)}`} novalidate>
      {errors.form ? (
        <p class="error" role="alert" id="form-error">
          {errors.form}
        </p>
      ) : null}
      {page.products.length > 0 ? (
        <Products page={page} values={values} error={errors.products} />
      ) : (
        <AmountField page={page} value={values.amount} error={errors.amount} />
      )}
      <fieldset>
        <legend>Your details (optional)</legend>
        <TextField id="email" label="Email" type="email" value={values.email} error={errors.email} />
        <TextField id="firstName" label="First name" value={values.firstName} />
        <TextField id="lastName" label="Last name" value={values.lastName} />
      </fieldset>
      <button type="submit" class="full">
        Continue to payment
      </button>
    </form>
  )
}

function AmountField(props: { page: PublicPaymentPage; value: string; error: string | undefined }) {
  const { page } = props
  const hint = page.minAmount
    ? `At least ${page.minAmount} ${page.currency}`
    : `Any amount in ${page.currency}`
  const described = props.error ? 'amount-hint amount-error' : 'amount-hint'
  return (
    <div class="field">
      <label for="amount">Amount ({page.currency})</label>
      <p class="muted" id="amount-hint">
        {hint}
      </p>
      <input
        id="amount"
        name="amount"
        type="text"
        inputmode="decimal"
        autocomplete="off"
        required
        value={props.value}
        aria-describedby={described}
        aria-invalid={props.error ? 'true' : 'false'}
      />
      {props.error ? (
        <p class="error" id="amount-error" role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  )
}

function Products(props: { page: PublicPaymentPage; values: PageFormValues; error: string | undefined }) {
  const { page } = props
  return (
    <fieldset aria-describedby={props.error ? 'products-error' : undefined}>
      <legend>{page.enableQuantity ? 'Choose quantities' : 'Choose what to buy'}</legend>
      {page.products.map((p) => {
        const value = props.values.quantities[p.id] ?? ''
        const id = `qty-${p.id}`
        return (
          <div class="product">
            <label for={id}>
              {p.title}
              <span class="muted">
                {' '}
                {p.price} {page.currency}
              </span>
              {p.description ? <span class="muted"> · {p.description}</span> : null}
            </label>
            {page.enableQuantity ? (
              <input
                id={id}
                name={`qty:${p.id}`}
                type="number"
                inputmode="numeric"
                min="0"
                max="999"
                step="1"
                value={value || '0'}
                aria-label={`Quantity of ${p.title}`}
              />
            ) : (
              <input id={id} name={`qty:${p.id}`} type="checkbox" value="1" checked={value === '1'} />
            )}
          </div>
        )
      })}
      {page.minAmount ? (
        <p class="muted">
          Minimum order: {page.minAmount} {page.currency}
        </p>
      ) : null}
      {props.error ? (
        <p class="error" id="products-error" role="alert">
          {props.error}
        </p>
      ) : null}
    </fieldset>
  )
}

function TextField(props: {
  id: string
  label: string
  value: string
  type?: string
  error?: string | undefined
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.id}
        type={props.type ?? 'text'}
        value={props.value}
        autocomplete={
          props.id === 'email' ? 'email' : props.id === 'firstName' ? 'given-name' : 'family-name'
        }
        aria-invalid={props.error ? 'true' : 'false'}
        aria-describedby={props.error ? `${props.id}-error` : undefined}
      />
      {props.error ? (
        <p class="error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  )
}

function BankAccounts(props: { page: PublicPaymentPage }) {
  return (
    <section class="card" aria-labelledby="bank-heading">
      <h2 id="bank-heading">Or pay by bank transfer</h2>
      <ul>
        {props.page.bankAccounts.map((b) => (
          <li>
            {b.bankName ?? 'Bank'}: {b.accountName ?? ''} <code>{b.accountNumber ?? ''}</code>
          </li>
        ))}
      </ul>
      <p class="muted">Account numbers are masked here; the merchant confirms the full details.</p>
    </section>
  )
}
