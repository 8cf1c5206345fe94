// @solana/kit's declarations use ErrorOptions (ES2022); this keeps them valid for a consumer on an
// older `lib` (docs/packages.md). Node 20 has it at run time.
/// <reference lib="es2022.error" preserve="true" />
/**
 * The `solana` scheme (x402 `exact` on SVM) on @solana/kit: the client builds and partially signs
 * a TransferChecked transaction, the server puts the facilitator's fee payer in the requirements,
 * and the facilitator verifies (layout, caps, signatures, simulation), co-signs, sends and confirms.
 *
 * @example
 * const facilitator = createSolanaFacilitator({
 *   networks: { [SOLANA_DEVNET]: { rpc: createSolanaRpc(url), feePayers: [relayer] } },
 *   assets: createAssetRegistry(),
 * })
 * const client = createSolanaClient({ signer: payer, rpcs: { [SOLANA_DEVNET]: createSolanaRpc(url) } })
 *
 * @module
 */
export type { OpenTokenAccountInput } from './build-open-token-account-transaction.js'
export { buildOpenTokenAccountTransaction } from './build-open-token-account-transaction.js'
export type { TransferTransaction, TransferTransactionInput } from './build-transfer-transaction.js'
export { buildTransferTransaction } from './build-transfer-transaction.js'
export type { SolanaLimits } from './check-payment-instructions.js'
export type { SolanaClientOptions, SolanaClientRpc } from './client.js'
export { createSolanaClient } from './client.js'
export { DEFAULT_LIMITS } from './constants.js'
export type { SolanaRpcClientOptions } from './create-solana-rpc-client.js'
export { createSolanaRpcClient } from './create-solana-rpc-client.js'
export { getPaymentFeePayer } from './decode-payment-transaction.js'
export type {
  FeePayerBalance,
  SolanaFacilitator,
  SolanaFacilitatorOptions,
  SolanaFacilitatorRpc,
} from './facilitator.js'
export { createSolanaFacilitator } from './facilitator.js'
export { createSolanaServer } from './server.js'
export { WireReader } from './wire-reader.js'
