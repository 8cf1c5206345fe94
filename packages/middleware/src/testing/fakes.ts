import {
  type Asset,
  createAssetRegistry,
  encodeBase64Json,
  type FacilitatorClient,
  type FacilitatorRequest,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type SchemeName,
  type SchemeServer,
  type SettleResponse,
  SOLANA_DEVNET,
  type SupportedResponse,
  type VerifyResponse,
} from '@tollgate/core'

// Test doubles shared by the middleware's tests (exported as @tollgate/middleware/testing).

export const PAYER = '0x1111111111111111111111111111111111111111'
export const MERCHANT_EVM = '0x2222222222222222222222222222222222222222'
export const MERCHANT_SVM = 'Merchant1111111111111111111111111111111111'
export const FEE_PAYER = 'FeePayer11111111111111111111111111111111111'

/** A scheme server that builds requirements the way the real ones do, minus the chain. */
export function createFakeSchemeServer(name: SchemeName): SchemeServer {
  return {
    name,
    createRequirements({ asset, amount, payTo, maxTimeoutSeconds, supportedKind, extra }) {
      const base = {
        scheme: 'exact',
        network: asset.network,
        amount: amount.toString(),
        asset: asset.address,
        payTo,
        maxTimeoutSeconds: maxTimeoutSeconds ?? 300,
      }
      if (name === 'solana') {
        return { ...base, extra: { feePayer: supportedKind?.extra?.feePayer, ...extra } }
      }
      if (name === 'permit2') {
        return { ...base, extra: { assetTransferMethod: 'permit2', ...extra } }
      }
      return { ...base, extra: { name: asset.eip712?.name, version: asset.eip712?.version, ...extra } }
    },
  }
}

export const fakeSchemes = [
  createFakeSchemeServer('eip3009'),
  createFakeSchemeServer('permit2'),
  createFakeSchemeServer('solana'),
]

const devnetUsdc2022: Asset = {
  network: SOLANA_DEVNET,
  symbol: 'USDC2022',
  address: 'Usdc2022Mint1111111111111111111111111111111',
  decimals: 6,
  transferMethods: ['solana'],
}
export const assets = createAssetRegistry([devnetUsdc2022])

/** A facilitator whose answers a test scripts, recording every call. */
export type FakeFacilitator = FacilitatorClient & {
  calls: { verify: FacilitatorRequest[]; settle: FacilitatorRequest[]; supported: number }
  /** Events in order (`verify`, `settle`, `handler` when a test logs it). */
  log: string[]
  verifyResult: VerifyResponse | Error
  /** Answers to successive settle calls; the last one repeats. */
  settleResults: (SettleResponse | Error)[]
  supported: SupportedResponse | Error
}

export function createFakeFacilitator(): FakeFacilitator {
  const fake: FakeFacilitator = {
    calls: { verify: [], settle: [], supported: 0 },
    log: [],
    verifyResult: { isValid: true, payer: PAYER },
    settleResults: [{ success: true, transaction: '0xabc', network: 'eip155:84532', payer: PAYER }],
    supported: {
      kinds: [
        { x402Version: 2, scheme: 'exact', network: 'eip155:84532' },
        { x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET, extra: { feePayer: FEE_PAYER } },
      ],
      extensions: [],
      signers: {},
    },
    async verify(request) {
      fake.calls.verify.push(request)
      fake.log.push('verify')
      if (fake.verifyResult instanceof Error) {
        throw fake.verifyResult
      }
      return fake.verifyResult
    },
    async settle(request) {
      const result = fake.settleResults[Math.min(fake.calls.settle.length, fake.settleResults.length - 1)]
      fake.calls.settle.push(request)
      fake.log.push('settle')
      if (!result || result instanceof Error) {
        throw result ?? new Error('no settle result scripted')
      }
      return result
    },
    async getSupported() {
      fake.calls.supported++
      if (fake.supported instanceof Error) {
        throw fake.supported
      }
      return fake.supported
    },
  }
  return fake
}

/** Decodes the `PAYMENT-REQUIRED` header of a response (throws when absent). */
export function readPaymentRequired(response: Response): PaymentRequired {
  const header = response.headers.get('PAYMENT-REQUIRED')
  if (!header) {
    throw new Error('no PAYMENT-REQUIRED header')
  }
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PaymentRequired
}

/** A v2 payment header that echoes `accepted` (the signature part is opaque to the middleware). */
export function createPaymentHeader(
  accepted: PaymentRequirements,
  overrides: Partial<PaymentPayload> = {},
): string {
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted,
    payload: {
      signature: '0xsig',
      authorization: { from: PAYER, to: accepted.payTo, value: accepted.amount },
    },
    ...overrides,
  }
  return encodeBase64Json(payload)
}
