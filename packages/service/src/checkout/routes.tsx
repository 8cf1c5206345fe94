import { randomBytes } from 'node:crypto'
import { AppError, isAppError } from '@tollgate/core'
import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import QRCode from 'qrcode'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { toHttpError } from '../http/handle-error.js'
import { createRateLimiter, createRateLimitMiddleware, type RateLimiter } from '../http/rate-limit.js'
import { createSessionAddress } from '../payments/create-session-address.js'
import { CheckoutPage, checkoutStatusText } from './checkout-page.js'
import { createClientIpReader } from './client-ip.js'
import { createHostedFormBody, defaultHostedFormLimitBytes } from './hosted-form-body.js'
import { HostedLayout, toHostedCsp } from './hosted-layout.js'
import { type Checkout, findCheckoutSession, loadCheckout } from './load-checkout.js'

/** Default per-IP limit of the public hosted pages: 120 requests per 60-second window. */
export const defaultCheckoutRateLimit = { limit: 120, windowMs: 60_000 }

/** Options of {@link createCheckoutRoutes}. */
export type CheckoutRoutesOptions = {
  /** Per-IP limiter of every hosted-page request (default {@link defaultCheckoutRateLimit}). */
  rateLimiter?: RateLimiter
  /** How often an open event stream re-reads its session, in ms (default 1000). */
  pollMs?: number
  /** Event streams one IP may hold open at once (default 20). */
  maxStreamsPerIp?: number
  /** Largest body of a hosted form post, in bytes (default {@link defaultHostedFormLimitBytes}); larger is a 413. */
  formLimitBytes?: number
  /** Sandbox only: `GET /checkout/sample` creates a session with this and opens its checkout. */
  createSampleSession?: () => Promise<string>
}

const terminal = new Set(['paid', 'underpaid', 'expired', 'failed'])
const keepAliveMs = 15_000

/**
 * The public hosted checkout (docs/checkout.md), mounted at the root of the service app, outside
 * `/api/v1`: no API key, a per-IP rate limit, keyed by the session reference, showing only the page's data.
 */
export function createCheckoutRoutes(deps: Deps, options: CheckoutRoutesOptions = {}) {
  const app = new Hono<AppEnv>()
  const pollMs = options.pollMs ?? 1000
  const maxStreams = options.maxStreamsPerIp ?? 20
  const streams = new Map<string, number>()
  const getClientIp = createClientIpReader(deps.settings.trustedProxies)
  app.onError((error, c) => renderHostedError(c, error))
  app.use(
    '/checkout/*',
    createRateLimitMiddleware(
      options.rateLimiter ?? createRateLimiter(defaultCheckoutRateLimit),
      getClientIp,
    ),
  )
  app.use('/checkout/*', hostedHeaders)
  app.use(
    '/checkout/*',
    createHostedFormBody({ limitBytes: options.formLimitBytes ?? defaultHostedFormLimitBytes }),
  )

  const createSample = options.createSampleSession
  if (createSample) {
    // Before `/checkout/:reference`; references start with `ps_`, so `sample` is never one.
    app.get('/checkout/sample', async (c) =>
      c.redirect(`/checkout/${encodeURIComponent(await createSample())}`, 303),
    )
  }

  app.get('/checkout/:reference', async (c) => {
    const checkout = await loadCheckout(deps, c.req.param('reference'))
    return renderCheckout(c, checkout)
  })

  app.post('/checkout/:reference/address', async (c) => {
    assertSameOrigin(c, deps.settings.publicBaseUrl)
    const reference = c.req.param('reference')
    const before = await loadCheckout(deps, reference)
    const form = await c.req.parseBody()
    const option = before.options.find((o) => o.value === form.option)
    if (!option) {
      return renderCheckout(c, before, 'Choose one of the listed assets and networks.', 400)
    }
    const row = await findCheckoutSession(deps, reference)
    try {
      await createSessionAddress(deps, {
        merchantId: row.merchant_id,
        environment: row.environment,
        reference,
        body: { asset: option.asset, chain: option.chain as never },
      })
    } catch (error) {
      const mapped = toHttpError(error)
      if (mapped.unexpected) {
        throw error
      }
      return renderCheckout(c, await loadCheckout(deps, reference), mapped.message, mapped.status)
    }
    return c.redirect(`/checkout/${encodeURIComponent(reference)}`, 303)
  })

  app.get('/checkout/:reference/events', async (c) => {
    const reference = c.req.param('reference')
    await findCheckoutSession(deps, reference)
    const ip = getClientIp(c)
    if ((streams.get(ip) ?? 0) >= maxStreams) {
      throw new AppError('rate_limited', {
        message: `At most ${maxStreams} open event streams per client`,
        context: { headers: { 'Retry-After': '30' } },
      })
    }
    streams.set(ip, (streams.get(ip) ?? 0) + 1)
    return streamSSE(c, async (stream) => {
      let aborted = false
      stream.onAbort(() => {
        aborted = true
      })
      try {
        let last = ''
        let quietMs = 0
        while (!aborted) {
          const checkout = await loadCheckout(deps, reference)
          const data = JSON.stringify(toStatusEvent(checkout))
          if (data !== last) {
            await stream.writeSSE({ event: 'status', data })
            last = data
            quietMs = 0
          } else if (quietMs >= keepAliveMs) {
            await stream.write(': keep-alive\n\n')
            quietMs = 0
          }
          if (terminal.has(checkout.status)) {
            break
          }
          await stream.sleep(pollMs)
          quietMs += pollMs
        }
      } finally {
        const left = (streams.get(ip) ?? 1) - 1
        if (left <= 0) {
          streams.delete(ip)
        } else {
          streams.set(ip, left)
        }
      }
    })
  })
  return app
}

/** Headers of every hosted-page response: never cached, never sniffed, no reference leaked by Referer. */
export const hostedHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next()
  c.header('Cache-Control', 'no-store')
  c.header('X-Content-Type-Options', 'nosniff')
  // Same-origin: our own form posts carry their Origin; other sites never see the reference.
  c.header('Referrer-Policy', 'same-origin')
}

/** The data of one `status` server-sent event: exactly what the page updates, nothing more. */
export function toStatusEvent(checkout: Checkout) {
  return {
    status: checkout.status,
    statusText: checkoutStatusText[checkout.status],
    amountReceived: checkout.amountReceived,
    amountDue: checkout.amountDue,
    redirectUrl: checkout.status === 'paid' ? checkout.successUrl : null,
  }
}

async function renderCheckout(
  c: Context<AppEnv>,
  checkout: Checkout,
  error?: string,
  status: ContentfulStatusCode = 200,
) {
  const nonce = randomBytes(16).toString('base64')
  const qrSvg = checkout.walletUri
    ? await QRCode.toString(checkout.walletUri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })
    : null
  c.header('Content-Security-Policy', toHostedCsp(nonce))
  return c.html(
    <CheckoutPage checkout={checkout} qrSvg={qrSvg} nonce={nonce} {...(error ? { error } : {})} />,
    status,
  )
}

/** Renders an error of a hosted page as HTML (404: the link does not exist), logging unexpected ones. */
export function renderHostedError(c: Context<AppEnv>, error: unknown) {
  const mapped = toHttpError(error)
  if (mapped.unexpected) {
    c.get('logger')?.error({ err: error, code: isAppError(error) ? error.code : undefined }, 'request failed')
  }
  for (const [name, value] of Object.entries(mapped.headers)) {
    c.header(name, value)
  }
  const nonce = randomBytes(16).toString('base64')
  c.header('Content-Security-Policy', toHostedCsp(nonce))
  c.header('Cache-Control', 'no-store')
  const message = mapped.status === 404 ? 'This payment link does not exist.' : mapped.message
  return c.html(
    <HostedLayout title="Payment" nonce={nonce}>
      <section class="card">
        <h1>{mapped.status === 404 ? 'Not found' : 'Something went wrong'}</h1>
        <p role="alert" data-error-code={mapped.code}>
          {message}
        </p>
      </section>
    </HostedLayout>,
    mapped.status,
  )
}

/**
 * Refuses a cross-site form post with 403 `forbidden`: a cross-site form must not act for a customer.
 * A browser says where a request comes from (Sec-Fetch-Site, Origin); non-browser clients send
 * neither and are only rate-limited.
 */
export function assertSameOrigin(c: Context<AppEnv>, publicBaseUrl: string): void {
  const site = c.req.header('sec-fetch-site')
  const origin = c.req.header('origin')
  const crossSite = site !== undefined && site !== 'same-origin' && site !== 'none'
  // Behind a TLS proxy the request URL is the proxy's target; the public base URL is the origin then.
  const ours = [new URL(c.req.url).origin, new URL(publicBaseUrl).origin]
  if (crossSite || (origin !== undefined && !ours.includes(origin))) {
    throw new AppError('forbidden', { message: 'Cross-origin request refused' })
  }
}
