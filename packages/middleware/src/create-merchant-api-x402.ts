import { type components, createTollgateClient, type TollgateClient } from '@tollgate/client'
import {
  AppError,
  type Asset,
  createAssetRegistry,
  type FacilitatorClient,
  type FacilitatorRequest,
  type Network,
  type PaymentRequirements,
  type SchemeName,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from '@tollgate/core'
import type { AcceptOption, PaymentMiddlewareOptions } from './types.js'

type X402FacilitatorBody = components['schemas']['X402FacilitatorBody']
type ApiChain = components['schemas']['X402RequirementsBody']['chain']

/** Options of {@link createMerchantApiX402}: the Tollgate merchant API and what to accept. */
export type MerchantApiX402Options = {
  /** `http://127.0.0.1:4020/api/v1` (the sandbox's `apiUrl`) or your deployment's. */
  apiUrl: string
  /** The merchant's `sk_test_…` or `sk_live_…` key. */
  apiKey: string
  /** Chains and assets to accept, in the API's names (`{ chain: 'base', asset: 'USDC' }`). */
  accept: readonly { chain: ApiChain; asset: string }[]
  /** The fetch to use (default `globalThis.fetch`); it is called with a `Request`. */
  fetch?: typeof fetch
}

/** What {@link createMerchantApiX402} gives the middleware: spread it into its options. */
export type MerchantApiX402 = Required<Pick<PaymentMiddlewareOptions, 'facilitator' | 'assets'>> & {
  /** The accept options of the requested chains and assets, each paying the merchant's x402 address. */
  accepts: AcceptOption[]
}

/**
 * The middleware's mode backed by the Tollgate merchant API instead of a facilitator: the offers
 * (token, decimals, EIP-712 domain, the merchant's x402 payTo) come from `POST /x402/requirements`,
 * and payments are verified and settled through `POST /x402/verify` and `/x402/settle`, so the
 * income lands in the merchant's Tollgate balance (docs/middleware.md).
 *
 * @example
 * const x402 = await createMerchantApiX402({ apiUrl, apiKey, accept: [{ chain: 'base', asset: 'USDC' }] })
 * app.use('/report', paymentRequired({ ...x402, routes: { price: '$0.01', accepts: x402.accepts } }))
 */
export async function createMerchantApiX402(options: MerchantApiX402Options): Promise<MerchantApiX402> {
  const call = createApiCaller(options)
  const assets: Asset[] = []
  const accepts: AcceptOption[] = []
  for (const wanted of options.accept) {
    const { data } = await call('/x402/requirements', (client) =>
      client.POST('/api/v1/x402/requirements', { body: { ...wanted, amount: '1', x402Version: 2 } }),
    )
    const offers = (data as { accepts?: PaymentRequirements[] }).accepts ?? []
    const first = offers[0]
    if (!first) {
      throw new AppError('middleware_config_invalid', {
        message: `the API offers nothing for ${wanted.asset} on ${wanted.chain}`,
      })
    }
    const methods = offers.map(toSchemeName)
    const domain = offers.find((o) => toSchemeName(o) === 'eip3009')?.extra
    assets.push({
      network: first.network as Network,
      symbol: wanted.asset,
      address: first.asset,
      // The API priced "1" unit, so the atomic amount is 1 followed by the token's decimals.
      decimals: first.amount.length - 1,
      transferMethods: methods,
      ...(typeof domain?.name === 'string' && typeof domain.version === 'string'
        ? { eip712: { name: domain.name, version: domain.version } }
        : {}),
    })
    for (const offer of offers) {
      accepts.push({
        scheme: toSchemeName(offer),
        network: offer.network,
        asset: offer.asset,
        payTo: offer.payTo,
      })
    }
  }
  return { facilitator: createMerchantApiFacilitator(call), assets: createAssetRegistry(assets), accepts }
}

function toSchemeName(offer: PaymentRequirements): SchemeName {
  if (offer.network.startsWith('solana:')) {
    return 'solana'
  }
  return offer.extra?.assetTransferMethod === 'permit2' ? 'permit2' : 'eip3009'
}

type Envelope = { success?: boolean; data?: unknown; error?: { code?: string; details?: unknown } }

type ApiCall = (client: TollgateClient) => Promise<{ data?: unknown; error?: unknown; response: Response }>

// One call through the typed client; an unreachable API, a 5xx, 401 or 429 is `facilitator_unreachable`.
type ApiCaller = (path: string, call: ApiCall) => Promise<{ status: number } & Envelope>

function createApiCaller(options: MerchantApiX402Options): ApiCaller {
  const client = createTollgateClient({
    baseUrl: options.apiUrl,
    apiKey: options.apiKey,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  const base = options.apiUrl.replace(/\/+$/, '')
  return async (path, call) => {
    let answer: Awaited<ReturnType<ApiCall>>
    try {
      answer = await call(client)
    } catch (cause) {
      throw new AppError('facilitator_unreachable', {
        context: { url: `${base}${path}` },
        cause,
        message: `the merchant API at ${base} did not answer`,
      })
    }
    const { status } = answer.response
    const parsed = (answer.data ?? answer.error ?? {}) as Envelope
    if (status >= 500 || status === 401 || status === 429) {
      throw new AppError('facilitator_unreachable', {
        context: { url: `${base}${path}`, status },
        message: `the merchant API answered ${status} (${parsed.error?.code ?? 'no code'})`,
      })
    }
    return { status, ...parsed }
  }
}

// The facilitator request as the API's body; the API reads the version from the payload when absent.
function toApiBody(request: FacilitatorRequest): X402FacilitatorBody {
  const { x402Version, paymentPayload, paymentRequirements, ...rest } = request
  return {
    ...rest,
    x402Version: x402Version ?? paymentPayload.x402Version,
    paymentPayload,
    paymentRequirements,
  }
}

// The API's answers in the x402 facilitator shapes the middleware speaks.
function createMerchantApiFacilitator(call: ApiCaller): FacilitatorClient {
  return {
    async verify(request: FacilitatorRequest): Promise<VerifyResponse> {
      const answer = await call('/x402/verify', (client) =>
        client.POST('/api/v1/x402/verify', { body: toApiBody(request) }),
      )
      const data = answer.data as {
        isValid?: boolean
        invalidReason?: string | null
        payer?: string | null
      } | null
      if (!answer.success || !data) {
        return { isValid: false, invalidReason: answer.error?.code ?? 'invalid_payload' }
      }
      return {
        isValid: data.isValid === true,
        ...(data.invalidReason ? { invalidReason: data.invalidReason } : {}),
        ...(data.payer ? { payer: data.payer } : {}),
      }
    },
    async settle(request: FacilitatorRequest): Promise<SettleResponse> {
      const network = String((request.paymentRequirements as { network?: unknown }).network ?? '')
      const answer = await call('/x402/settle', (client) =>
        client.POST('/api/v1/x402/settle', { body: toApiBody(request) }),
      )
      const data = answer.data as {
        txHash: string
        status: string
        payer: string | null
        network: string
      } | null
      if (!answer.success || !data) {
        const details = answer.error?.details as { errorReason?: string } | undefined
        return {
          success: false,
          errorReason: details?.errorReason ?? answer.error?.code ?? 'unexpected_settle_error',
          transaction: '',
          network,
        }
      }
      const pending = data.status === 'pending'
      return {
        success: !pending,
        ...(pending ? { errorReason: 'settlement_pending' } : {}),
        transaction: data.txHash,
        network: data.network,
        ...(data.payer ? { payer: data.payer } : {}),
      }
    },
    async getSupported(): Promise<SupportedResponse> {
      const answer = await call('/x402/supported', (client) => client.GET('/api/v1/x402/supported'))
      const kinds = (answer.data as { kinds?: SupportedResponse['kinds'] } | null)?.kinds ?? []
      return {
        kinds: kinds.map(({ x402Version, scheme, network, extra }) => ({
          x402Version,
          scheme,
          network,
          ...(extra ? { extra } : {}),
        })),
        extensions: [],
        signers: {},
      }
    },
  }
}
