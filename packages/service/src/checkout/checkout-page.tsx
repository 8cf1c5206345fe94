import { raw } from 'hono/html'
import { checkoutScript } from './checkout-assets.js'
import { HostedLayout } from './hosted-layout.js'
import { type Checkout, type CheckoutStatus, toChainLabel } from './load-checkout.js'

/** The sentence shown (and announced) for each {@link CheckoutStatus}. */
export const checkoutStatusText: Record<CheckoutStatus, string> = {
  choose: 'Choose how you want to pay',
  waiting: 'Waiting for your payment',
  seen: 'Payment seen on the network, waiting for confirmation',
  confirming: 'Confirming your payment',
  partial: 'Partially paid: please send the rest',
  paid: 'Paid. Thank you!',
  underpaid: 'Closed: less than the amount due was received',
  expired: 'This payment session has expired',
  failed: 'This payment could not be accepted',
}

/** Props of {@link CheckoutPage}: the public checkout, the SVG of its QR code, a CSP nonce and an error. */
export type CheckoutPageProps = { checkout: Checkout; qrSvg: string | null; nonce: string; error?: string }

/** The hosted checkout of one session (docs/checkout.md). */
export function CheckoutPage(props: CheckoutPageProps) {
  const { checkout: c } = props
  const open = !['paid', 'underpaid', 'expired', 'failed'].includes(c.status)
  const payAsset = c.asset && c.chain ? `${c.asset} on ${toChainLabel(c.chain)}` : null
  return (
    <HostedLayout title={`Pay ${c.merchant.name}: ${c.title}`} nonce={props.nonce} script={checkoutScript}>
      <div
        data-reference={c.reference}
        data-status={c.status}
        data-events={`/checkout/${encodeURIComponent(c.reference)}/events`}
      >
        <section class="card" aria-labelledby="title">
          <header>
            {c.merchant.logoUrl ? <img src={c.merchant.logoUrl} alt="" /> : null}
            <span class="merchant">{c.merchant.name}</span>
            {c.environment === 'test' ? <span class="badge">Test mode</span> : null}
          </header>
          <h1 id="title">{c.title}</h1>
          {c.description ? <p>{c.description}</p> : null}
          <p class="amount" id="fiat-amount">
            {c.amount} {c.currency}
          </p>
          {c.cryptoAmount && payAsset ? (
            <p class="crypto">
              Pay <span id="crypto-amount-label">{c.cryptoAmount}</span> {payAsset}
            </p>
          ) : null}
        </section>
        <section class="card" aria-label="Payment status">
          <p id="status" class="status" role="status" aria-live="polite" data-status={c.status}>
            {checkoutStatusText[c.status]}
          </p>
          {open ? (
            <p class="muted">
              Expires in{' '}
              <time id="countdown" datetime={c.expiresAt}>
                {c.expiresAt}
              </time>
            </p>
          ) : null}
          {props.error ? (
            <p class="error" role="alert">
              {props.error}
            </p>
          ) : null}
          {c.address && open ? <Due checkout={c} /> : null}
          {c.status === 'paid' && c.successUrl ? (
            <a class="button full" href={c.successUrl}>
              Return to {c.merchant.name}
            </a>
          ) : null}
          {!open && c.status !== 'paid' && c.cancelUrl ? (
            <a class="button full" href={c.cancelUrl}>
              Back to {c.merchant.name}
            </a>
          ) : null}
        </section>
        {c.status === 'choose' ? <ChooseForm checkout={c} /> : null}
        {c.address && open ? <PayTo checkout={c} qrSvg={props.qrSvg} payAsset={payAsset ?? ''} /> : null}
        {open && c.cancelUrl ? (
          <p>
            <a id="cancel" href={c.cancelUrl}>
              Cancel and return to {c.merchant.name}
            </a>
          </p>
        ) : null}
        <footer>Reference {c.reference}</footer>
      </div>
    </HostedLayout>
  )
}

function Due(props: { checkout: Checkout }) {
  const c = props.checkout
  return (
    <p id="due" hidden={c.amountDue === null}>
      Received <span id="amount-received">{c.amountReceived ?? ''}</span> {c.asset}. Still due:{' '}
      <strong id="amount-due">{c.amountDue ?? ''}</strong> {c.asset}
    </p>
  )
}

function ChooseForm(props: { checkout: Checkout }) {
  const c = props.checkout
  return (
    <form class="card" method="post" action={`/checkout/${encodeURIComponent(c.reference)}/address`}>
      <label for="option">Pay with</label>
      <select id="option" name="option" required>
        {c.options.map((o) => (
          <option value={o.value}>{o.label}</option>
        ))}
      </select>
      <button type="submit" class="full">
        Continue
      </button>
    </form>
  )
}

function PayTo(props: { checkout: Checkout; qrSvg: string | null; payAsset: string }) {
  const c = props.checkout
  const amount = c.amountDue ?? c.cryptoAmount ?? ''
  return (
    <section class="card" aria-labelledby="pay-heading">
      <h2 id="pay-heading">Send {props.payAsset}</h2>
      {props.qrSvg ? (
        <figure class="qr" role="img" aria-label={`QR code of the payment request: ${c.walletUri ?? ''}`}>
          {raw(props.qrSvg)}
        </figure>
      ) : null}
      <div class="field">
        <span class="label" id="amount-label">
          Amount ({c.asset})
        </span>
        <div class="value">
          <code id="amount">{amount}</code>
          <button type="button" class="secondary" data-copy="amount" aria-label="Copy amount">
            Copy
          </button>
        </div>
      </div>
      <div class="field">
        <span class="label" id="address-label">
          Address ({c.chain ? toChainLabel(c.chain) : ''})
        </span>
        <div class="value">
          <code id="address">{c.address}</code>
          <button type="button" class="secondary" data-copy="address" aria-label="Copy address">
            Copy
          </button>
        </div>
      </div>
      <p class="muted">Send exactly this amount on this network only; other assets or networks are lost.</p>
      {c.walletUri ? (
        <a class="button full" href={c.walletUri}>
          Open in wallet
        </a>
      ) : null}
    </section>
  )
}
