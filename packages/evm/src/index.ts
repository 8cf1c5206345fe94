/**
 * x402 `exact` on EVM for Tollgate: the `eip3009` scheme (EIP-3009 `transferWithAuthorization`)
 * and the `permit2` scheme (Permit2 through x402's exact proxy), each as client (sign), server
 * (requirements) and facilitator (verify + settle), plus the relayer that pays settlement gas
 * from a pool of fee-payer keys.
 *
 * @example
 * import { createEip3009Facilitator, createRelayer } from '@tollgate/evm'
 * const relayer = createRelayer({ network: 'eip155:84532', client, accounts: [feePayer] })
 * const eip3009 = createEip3009Facilitator({
 *   networks: { 'eip155:84532': { client, relayer } },
 *   assets: createAssetRegistry(),
 * })
 * const answer = await eip3009.verify(paymentPayload, paymentRequirements)
 *
 * @module
 */
import './errors.js'

export { eip3009Abi, permit2Abi, x402ExactPermit2ProxyAbi } from './abis.js'
export {
  DEFAULT_MAX_TIMEOUT_SECONDS,
  MULTICALL3_ADDRESS,
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
} from './constants.js'
export type { Eip3009ClientOptions } from './eip3009/client.js'
export { createEip3009Client } from './eip3009/client.js'
export { createEip3009Facilitator } from './eip3009/facilitator.js'
export { createEip3009Server } from './eip3009/server.js'
export type { EvmFacilitatorClient, EvmFacilitatorOptions } from './exact/exact-evm-context.js'
export { Eip3009Authorization, Eip3009Payload, Permit2Authorization, Permit2Payload } from './payloads.js'
export type { ApprovePermit2Parameters } from './permit2/approve-permit2.js'
export { approvePermit2 } from './permit2/approve-permit2.js'
export type { Permit2ClientOptions } from './permit2/client.js'
export { createPermit2Client } from './permit2/client.js'
export { createPermit2Facilitator } from './permit2/facilitator.js'
export { createPermit2Server } from './permit2/server.js'
export type { RelayerClient, RelayerOptions } from './relayer/create-relayer.js'
export { createRelayer } from './relayer/create-relayer.js'
export type {
  Relayer,
  RelayerBalance,
  RelayerSendOptions,
  RelayerSentTransaction,
  RelayerTransactionRequest,
} from './relayer/types.js'
export type { EvmHttpTransportOptions } from './rpc/create-evm-http-transport.js'
export { createEvmHttpTransport } from './rpc/create-evm-http-transport.js'
export type { EvmPayer } from './signatures/evm-payer.js'
export { nativePrivateKeyToAccount } from './signatures/native-account.js'
export { recoverSigner } from './signatures/recover-signer.js'
export type { Eip3009Message, Permit2Message } from './signatures/typed-data.js'
export {
  getEip3009Digest,
  getPermit2Digest,
  permitWitnessTransferFromTypes,
  transferWithAuthorizationTypes,
} from './signatures/typed-data.js'
