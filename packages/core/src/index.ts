/**
 * x402 wire types (zod schemas, v1 and v2), header codecs, CAIP-2 networks, the asset registry,
 * money helpers (decimal string <-> bigint atomic units), reason strings, the scheme interfaces
 * and `AppError`. No chain SDK lives here.
 *
 * @example
 * import { parseDollarPrice, createAssetRegistry } from '@tollgate/core'
 * const usdc = createAssetRegistry().get('eip155:8453', 'USDC')
 * parseDollarPrice('$0.01', usdc.decimals) // 10000n
 *
 * @module
 */
export { DYNAMIC_EXTRA_FIELDS, findAcceptedMismatch, isDeepEqual } from './accepted.js'
export type { AppErrorCode, AppErrorContexts, AppErrorOptions, RequestErrorContext } from './app-error.js'
export { AppError, isAppError } from './app-error.js'
export type { Asset, SchemeName } from './assets.js'
export { AssetRegistry, createAssetRegistry, DEFAULT_ASSETS, sameAddress } from './assets.js'
export { toCanonicalJson } from './canonical-json.js'
export {
  decodeBase64Json,
  decodePaymentHeader,
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodeBase64Json,
  parsePaymentRequiredV1Body,
  X402_HEADERS,
} from './codecs.js'
export type { NormalizedFacilitatorRequest } from './convert.js'
export {
  getResourceInfoV1,
  normalizeFacilitatorRequest,
  toPaymentRequirements,
  toPaymentRequirementsV1,
} from './convert.js'
export {
  MULTICALL3_ADDRESS,
  PERMIT2_ADDRESS,
  SAFE_PROXY_FACTORY_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
} from './evm-contracts.js'
export type { JsonHazard } from './json-hazards.js'
export { findJsonHazard, hasUnstorableText, MAX_JSON_DEPTH } from './json-hazards.js'
export type { ParseDecimalAmountOptions } from './money.js'
export { formatAtomicAmount, parseAtomicAmount, parseDecimalAmount, parseDollarPrice } from './money.js'
export type { Network, NetworkFamily } from './networks.js'
export {
  getEvmChainId,
  getNetworkFamily,
  isCaip2Network,
  isEvmNetwork,
  isSolanaNetwork,
  SOLANA_DEVNET,
  SOLANA_MAINNET,
  SOLANA_TESTNET,
  toCaip2Network,
  toV1NetworkName,
} from './networks.js'
export type { Reason } from './reasons.js'
export { REASONS } from './reasons.js'
export { drainRequestBody, isUndrainable, MAX_DRAIN_BYTES, readRequestText } from './request-body.js'
export {
  SettleResponse,
  SupportedKind,
  SupportedResponse,
  VerifyResponse,
} from './schemas/facilitator-responses.js'
export {
  AnyPaymentPayload,
  FacilitatorRequest,
  PaymentPayload,
  PaymentPayloadV1,
  SchemePayload,
} from './schemas/payment-payload.js'
export {
  AtomicAmount,
  Caip2Network,
  PaymentRequired,
  PaymentRequiredV1,
  PaymentRequirements,
  PaymentRequirementsV1,
  ResourceInfo,
} from './schemas/payment-requirements.js'
export type {
  CreateRequirementsParameters,
  FacilitatorClient,
  SchemeClient,
  SchemeFacilitator,
  SchemeServer,
  SettleContext,
  SettledOutcomeWrite,
  SettleOptions,
  VerifyOptions,
} from './scheme.js'
export { getSchemeName } from './scheme.js'
export { createSettleFailure } from './settle-failure.js'
