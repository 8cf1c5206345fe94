import {
  encodeBase64Json,
  getSchemeName,
  type PaymentRequired,
  type PaymentRequiredV1,
  type PaymentRequirements,
  type SchemeClient,
  type SchemeName,
  SOLANA_DEVNET,
} from '@tollgate/core'

// Test doubles shared by the agent's unit tests (exported as @tollgate/agent/testing).

export const EVM_PAYER = '0x1111111111111111111111111111111111111111'
export const SVM_PAYER = 'Payer11111111111111111111111111111111111111'
export const MERCHANT = '0x2222222222222222222222222222222222222222'

export type FakeClient = SchemeClient & { signed: PaymentRequirements[]; fail?: Error }

/** A scheme client for `networks` that "signs" by echoing the requirement. */
export function createFakeClient(name: SchemeName, networks: readonly string[]): FakeClient {
  const address = name === 'solana' ? SVM_PAYER : EVM_PAYER
  const client: FakeClient = {
    name,
    signed: [],
    canPay: (r) => getSchemeName(r) === name && networks.includes(r.network),
    getAddress: (network) => (networks.includes(network) ? address : undefined),
    async createPayload(requirements) {
      if (client.fail) {
        throw client.fail
      }
      client.signed.push(requirements)
      return { signature: '0xfake', from: address }
    },
  }
  return client
}

export const usdcBaseSepolia: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: MERCHANT,
  maxTimeoutSeconds: 300,
  extra: { name: 'USDC', version: '2' },
}
export const usdtBscTestnet: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:97',
  amount: '5000000000000000',
  asset: '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd',
  payTo: MERCHANT,
  maxTimeoutSeconds: 300,
  extra: { assetTransferMethod: 'permit2' },
}
export const usdcSolanaDevnet: PaymentRequirements = {
  scheme: 'exact',
  network: SOLANA_DEVNET,
  amount: '20000',
  asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  payTo: 'Merchant1111111111111111111111111111111111',
  maxTimeoutSeconds: 300,
  extra: { feePayer: 'FeePayer11111111111111111111111111111111111' },
}

export function createOffer(
  accepts: PaymentRequirements[],
  extra: Partial<PaymentRequired> = {},
): PaymentRequired {
  return { x402Version: 2, resource: { url: 'https://api.test/weather' }, accepts, ...extra }
}

/** A paid server: 402 with `offer` until a payment header arrives, then 200 with a receipt. */
export function createFakeServer(
  offer: PaymentRequired | PaymentRequiredV1,
  options: { alwaysRequire?: boolean } = {},
) {
  const requests: Request[] = []
  const bodies: string[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    requests.push(request)
    bodies.push(await request.text())
    const payment = request.headers.get('PAYMENT-SIGNATURE') ?? request.headers.get('X-PAYMENT')
    if (!payment || options.alwaysRequire) {
      return offer.x402Version === 2
        ? new Response('{}', { status: 402, headers: { 'PAYMENT-REQUIRED': encodeBase64Json(offer) } })
        : Response.json(offer, { status: 402 })
    }
    const receipt = { success: true, transaction: '0xtx', network: 'eip155:84532', payer: EVM_PAYER }
    const name = offer.x402Version === 2 ? 'PAYMENT-RESPONSE' : 'X-PAYMENT-RESPONSE'
    return new Response('{"ok":true}', { status: 200, headers: { [name]: encodeBase64Json(receipt) } })
  }
  return { fetch, requests, bodies }
}

/** Decodes the payment header the agent sent on `request`. */
export function readPaymentHeader(request: Request | undefined): Record<string, unknown> {
  const header = request?.headers.get('PAYMENT-SIGNATURE') ?? request?.headers.get('X-PAYMENT')
  if (!header) {
    throw new Error('no payment header')
  }
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Record<string, unknown>
}
