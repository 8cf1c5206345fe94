import {
  type AnyPaymentPayload,
  type AssetRegistry,
  createAssetRegistry,
  decodePaymentHeader,
  type FacilitatorClient,
  type FacilitatorRequest,
  getSchemeName,
  isAppError,
  type PaymentRequired,
  type PaymentRequirements,
  REASONS,
  type ResourceInfo,
  type SettleResponse,
  toPaymentRequirementsV1,
  X402_HEADERS,
} from '@tollgate/core'
import { createRequirementsBuilder } from './build-requirements.js'
import { type ClaimSettings, runClaimed } from './claim-payment.js'
import { compileRoutes, findRoute } from './compile-routes.js'
import { createDefaultSchemes } from './create-default-schemes.js'
import { matchPayment } from './match-payment.js'
import { createMemoryPaymentClaims } from './payment-claims.js'
import { renderPaywallHtml } from './paywall-html.js'
import {
  createFacilitatorErrorResponse,
  createPaymentRequiredResponse,
  createSettleFailedResponse,
  withReceipt,
} from './respond.js'
import { runIdempotent, toIdentifierSettings } from './run-idempotent.js'
import { createSupportedCache } from './supported-cache.js'
import { toFacilitatorClient } from './to-facilitator-client.js'
import type { Paid, PaymentInfo, PaymentMiddlewareOptions, PaywallOptions } from './types.js'

/** What the gate needs from a request (a Fetch `Request` plus its path, or an adapter's view). */
export type GateRequest = {
  method: string
  url: string
  path: string
  headers: { get(name: string): string | null }
}

/** Runs the protected handler; receives the payment (`undefined` on unprotected routes). */
export type GateNext = (payment: PaymentInfo | undefined) => Promise<Response>

/** The framework-neutral core of the middleware: 402, verify, run the handler, settle. */
export type PaymentGate = {
  handle(request: GateRequest, next: GateNext): Promise<Response>
}

const DEFAULT_SUPPORTED_TTL_MS = 10 * 60 * 1000

/** Creates the payment gate the hono, Fetch and Express adapters share. */
export function createPaymentGate(options: PaymentMiddlewareOptions): PaymentGate {
  const assets = options.assets ?? createAssetRegistry()
  const facilitator = toFacilitatorClient(options.facilitator)
  const schemes = options.schemes ?? createDefaultSchemes()
  const routes = compileRoutes(options.routes, {
    schemes,
    assets,
    ...(options.payTo !== undefined ? { payTo: options.payTo } : {}),
    flow: options.flow ?? 'authorization',
  })
  const onError = options.onError ?? (() => {})
  const supported = createSupportedCache(facilitator, {
    ttlMs: options.supportedTtlMs ?? DEFAULT_SUPPORTED_TTL_MS,
  })
  const buildRequirements = createRequirementsBuilder({ supported, onError })
  const paywall = options.paywall === false ? undefined : (options.paywall ?? {})
  const identifiers = toIdentifierSettings(options.paymentIdentifier)
  const claims: ClaimSettings = {
    store: options.paymentClaims ?? createMemoryPaymentClaims(),
    schemes,
    now: Date.now,
  }

  const gate: GateContext = { facilitator, onError, assets, paywall }

  return {
    async handle(request, next) {
      const route = request.method === 'OPTIONS' ? undefined : findRoute(routes, request.method, request.path)
      if (!route) {
        return next(undefined)
      }
      let requirements: PaymentRequirements[]
      try {
        requirements = await buildRequirements(route)
      } catch (error) {
        return facilitatorFailure(gate, error)
      }
      const resource: ResourceInfo = { url: request.url, ...route.resource }
      const offer = (error?: string): PaymentRequired => ({
        x402Version: 2,
        ...(error !== undefined ? { error } : {}),
        resource,
        accepts: requirements,
        ...(identifiers ? { extensions: identifiers.extensions } : {}),
      })
      const header =
        request.headers.get(X402_HEADERS.paymentSignature) ?? request.headers.get(X402_HEADERS.xPayment)
      if (!header) {
        return unpaid(gate, request, offer('Payment required'))
      }
      const paid = preparePayment(header, requirements, resource, offer)
      if (!paid) {
        return createPaymentRequiredResponse(offer('No matching payment requirements'))
      }
      // The payment-identifier replay comes first: a retry with the same id gets the first answer
      // again, not the claim's refusal.
      const run = () =>
        runClaimed(paid, claims, () =>
          route.flow === 'upfront' ? runUpfront(gate, paid, next) : runAuthorization(gate, paid, next),
        )
      return identifiers ? runIdempotent(paid, identifiers, run) : run()
    },
  }
}

// What the gate's parts share.
type GateContext = {
  facilitator: FacilitatorClient
  onError: (error: unknown) => void
  assets: AssetRegistry
  paywall: PaywallOptions | undefined
}

/** A 502 for a facilitator that failed or could not be reached (reported through `onError`). */
function facilitatorFailure(gate: GateContext, error: unknown): Response {
  gate.onError(error)
  return createFacilitatorErrorResponse(
    isAppError(error, 'facilitator_unreachable') ? error.message : 'facilitator error',
  )
}

/** The 402 for a request without payment: JSON, or the paywall page for a browser. */
function unpaid(gate: GateContext, request: GateRequest, paymentRequired: PaymentRequired): Response {
  const { paywall, assets } = gate
  const wantsHtml = paywall && (request.headers.get('accept') ?? '').includes('text/html')
  if (!wantsHtml) {
    return createPaymentRequiredResponse(paymentRequired)
  }
  const html = paywall.render
    ? paywall.render(paymentRequired)
    : renderPaywallHtml(paymentRequired, {
        assets,
        ...(paywall.appName ? { appName: paywall.appName } : {}),
      })
  return createPaymentRequiredResponse(paymentRequired, { html })
}

/** A fresh offer for a refused payment (412 when the payer must first approve Permit2). */
function rejected(paid: Paid, reason: string): Response {
  return createPaymentRequiredResponse(paid.offer(reason), {
    status: reason.startsWith(REASONS.permit2AllowanceRequired) ? 412 : 402,
  })
}

// One automatic re-settle when the first attempt broadcast but could not confirm in time: the
// facilitator re-awaits the same transaction instead of paying again (docs/x402.md, 'Settlement pending').
async function settle(facilitator: FacilitatorClient, request: FacilitatorRequest): Promise<SettleResponse> {
  const first = await facilitator.settle(request)
  if (first.success || first.errorReason !== REASONS.settlementPending || !first.transaction) {
    return first
  }
  return facilitator.settle(request)
}

/** The `authorization` flow: verify, run the handler, settle after a successful answer. */
async function runAuthorization(gate: GateContext, paid: Paid, next: GateNext): Promise<Response> {
  const { facilitator } = gate
  let verified: Awaited<ReturnType<FacilitatorClient['verify']>>
  try {
    verified = await facilitator.verify(paid.facilitatorRequest)
  } catch (error) {
    return facilitatorFailure(gate, error)
  }
  if (!verified.isValid) {
    return rejected(paid, verified.invalidReason ?? REASONS.invalidPayload)
  }
  const response = await next(toPaymentInfo(paid, verified.payer))
  // A failed handler delivered nothing, so nothing is charged; its answer goes out unchanged.
  if (response.status >= 400) {
    return response
  }
  let settled: SettleResponse
  try {
    settled = await settle(gate.facilitator, paid.facilitatorRequest)
  } catch (error) {
    await response.body?.cancel()
    return facilitatorFailure(gate, error)
  }
  if (!settled.success) {
    await response.body?.cancel()
    return createSettleFailedResponse(settled, {
      x402Version: paid.payment.x402Version,
      paymentRequired: paid.offer(settled.errorReason),
    })
  }
  return withReceipt(response, settled, paid.payment.x402Version)
}

/** The `upfront` flow: settle first, then run the handler and attach the receipt. */
async function runUpfront(gate: GateContext, paid: Paid, next: GateNext): Promise<Response> {
  let settled: SettleResponse
  try {
    settled = await settle(gate.facilitator, paid.facilitatorRequest)
  } catch (error) {
    return facilitatorFailure(gate, error)
  }
  if (!settled.success) {
    const reason = settled.errorReason ?? ''
    return reason.startsWith(REASONS.permit2AllowanceRequired)
      ? rejected(paid, reason)
      : createSettleFailedResponse(settled, {
          x402Version: paid.payment.x402Version,
          paymentRequired: paid.offer(settled.errorReason),
        })
  }
  let response: Response
  try {
    response = await next(toPaymentInfo(paid, settled.payer, settled.transaction))
  } catch (error) {
    // Already charged: the payer must still learn the transaction.
    gate.onError(error)
    response = new Response(JSON.stringify({ error: 'Internal Server Error' }), {
      status: 500,
      headers: { 'Content-Type': 'application/json' },
    })
  }
  return withReceipt(response, settled, paid.payment.x402Version)
}

function preparePayment(
  header: string,
  requirements: PaymentRequirements[],
  resource: ResourceInfo,
  offer: Paid['offer'],
): Paid | undefined {
  let payment: AnyPaymentPayload
  try {
    payment = decodePaymentHeader(header)
  } catch {
    return undefined
  }
  const matched = matchPayment(payment, requirements)
  if (!matched) {
    return undefined
  }
  if (payment.x402Version === 2) {
    return {
      payment,
      requirements: matched,
      offer,
      facilitatorRequest: { x402Version: 2, paymentPayload: payment, paymentRequirements: matched },
    }
  }
  const v1Requirements = toPaymentRequirementsV1(matched, resource)
  if (!v1Requirements) {
    return undefined
  }
  return {
    payment,
    requirements: matched,
    offer,
    facilitatorRequest: { x402Version: 1, paymentPayload: payment, paymentRequirements: v1Requirements },
  }
}

function toPaymentInfo(paid: Paid, payer: string | undefined, transaction?: string): PaymentInfo {
  const { requirements } = paid
  return {
    payer: payer ?? getPayloadPayer(paid.payment.payload) ?? '',
    amount: requirements.amount,
    asset: requirements.asset,
    network: requirements.network,
    scheme: getSchemeName(requirements) ?? requirements.scheme,
    ...(transaction ? { transaction } : {}),
    x402Version: paid.payment.x402Version,
    requirements,
  }
}

function getPayloadPayer(payload: Record<string, unknown>): string | undefined {
  const authorization = payload.authorization ?? payload.permit2Authorization
  if (typeof authorization === 'object' && authorization !== null && 'from' in authorization) {
    return typeof authorization.from === 'string' ? authorization.from : undefined
  }
  return undefined
}
