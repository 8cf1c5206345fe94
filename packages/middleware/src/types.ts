import type {
  AnyPaymentPayload,
  AssetRegistry,
  FacilitatorClient,
  FacilitatorRequest,
  NetworkFamily,
  PaymentRequired,
  PaymentRequirements,
  ResourceInfo,
  SchemeName,
  SchemeServer,
} from '@tollgate/core'
import type { HttpFacilitatorClientOptions } from './create-http-facilitator-client.js'
import type { PaymentClaimStore } from './payment-claims.js'
import type { PaymentIdentifierOptions } from './payment-identifier.js'

/**
 * A price: dollars (`'$0.01'`, `'0.01'` or `0.01`), converted with the asset's decimals by
 * `parseDollarPrice` (never through a float), or an exact amount in the asset's atomic units.
 */
export type Price = string | number | { amount: bigint | string }

/** Who gets paid: one address, or one per chain family (an EVM and a Solana address). */
export type PayTo = string | Partial<Record<NetworkFamily, string>>

/**
 * When the payment is settled. `authorization` (default): verify, run the handler, settle only if
 * it answered < 400. `upfront`: settle before the handler (long handlers, Solana blockhash expiry).
 */
export type PaymentFlow = 'authorization' | 'upfront'

/** One way to pay for a route: a scheme on a network in an asset. */
export type AcceptOption = {
  scheme: SchemeName
  /** CAIP-2 network (`eip155:84532`) or an x402 v1 name (`base-sepolia`). */
  network: string
  /** Asset symbol or address in the asset registry; default `USDC`. */
  asset?: string
  /** Overrides the route's price for this option. */
  price?: Price
  payTo?: string
  /** Seconds a signed payment stays valid (default: the scheme server's, 300). */
  maxTimeoutSeconds?: number
  /** Extra fields for the requirement's `extra` (for example a Solana `memo`). */
  extra?: Record<string, unknown>
}

/** Payment settings of one protected route. */
export type RouteConfig = {
  accepts: AcceptOption | readonly AcceptOption[]
  /** The price of every option that has none of its own. */
  price?: Price
  payTo?: PayTo
  description?: string
  mimeType?: string
  /** Resource metadata for the 402 (`url` defaults to the request URL). */
  resource?: Partial<ResourceInfo>
  flow?: PaymentFlow
}

/**
 * Routes: either one {@link RouteConfig} for every request that reaches the middleware, or a map
 * from `'METHOD /path'` patterns (`'GET /weather'`, `'/api/*'`, `'POST /items/:id'`) to configs.
 * The first pattern that matches wins.
 */
export type RoutesConfig = RouteConfig | Record<string, RouteConfig>

/** The facilitator: a URL, HTTP client options, or any {@link FacilitatorClient} (e.g. in-process). */
export type FacilitatorOption = string | HttpFacilitatorClientOptions | FacilitatorClient

/** Options of the HTML page browsers get instead of a bare 402. */
export type PaywallOptions = {
  /** Name shown as the page title. */
  appName?: string
  /** Replaces the built-in page entirely. */
  render?: (paymentRequired: PaymentRequired) => string
}

/** Options shared by {@link paymentRequired}, {@link createPaymentHandler} and {@link paymentRequiredExpress}. */
export type PaymentMiddlewareOptions = {
  facilitator: FacilitatorOption
  routes: RoutesConfig
  /**
   * Scheme servers that build requirements; default Tollgate's three (`createEip3009Server()`,
   * `createPermit2Server()`, `createSolanaServer()`).
   */
  schemes?: readonly SchemeServer[]
  /** Assets prices are quoted in (default: `createAssetRegistry()`). */
  assets?: AssetRegistry
  /** Default payee for routes and options without one. */
  payTo?: PayTo
  /** Default flow for routes without one. */
  flow?: PaymentFlow
  /** HTML paywall for browsers; `false` answers them with the plain 402. */
  paywall?: PaywallOptions | false
  /** How long the facilitator's `/supported` answer is cached (default 10 minutes). */
  supportedTtlMs?: number
  /**
   * The x402 `payment-identifier` extension: clients may send an id (`required: true` makes it
   * mandatory); a retry with the same id and payment gets the first paid response again instead of a
   * new charge, the same id with another payment gets 409. In memory, per process.
   */
  paymentIdentifier?: boolean | PaymentIdentifierOptions
  /**
   * Where each payment is claimed before its handler runs, so one payment buys one response
   * however many times it is sent at once. Default: in this process's memory
   * (`createMemoryPaymentClaims()`); give every instance one shared store when the merchant runs
   * several (`createPostgresPaymentClaims({ client })`).
   */
  paymentClaims?: PaymentClaimStore
  /** Called with unexpected errors (facilitator failures, unbuildable requirements) for logging. */
  onError?: (error: unknown) => void
}

/** The payment behind a paid request, as the handler sees it. */
export type PaymentInfo = {
  /** Payer address (from the facilitator's verify or settle answer). */
  payer: string
  /** Amount in the asset's atomic units (decimal string). */
  amount: string
  asset: string
  network: string
  /** Tollgate scheme name (`eip3009`, `permit2`, `solana`), or the wire scheme for others. */
  scheme: string
  /** Settlement transaction: only known to the handler in the `upfront` flow. */
  transaction?: string
  x402Version: 1 | 2
  requirements: PaymentRequirements
}

/** A decoded payment matched to one of the route's requirements (what the gate verifies and settles). */
export type Paid = {
  payment: AnyPaymentPayload
  requirements: PaymentRequirements
  facilitatorRequest: FacilitatorRequest
  offer: (error?: string) => PaymentRequired
}
