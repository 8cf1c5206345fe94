/**
 * `@tollgate/devnet/testing`: tools for fork tests offline: an upstream chain whose USDC has
 * FiatToken's storage layout, and a JSON-RPC recorder that shows what a fork asks its upstream.
 *
 * @module
 */
export { isReadOnlyRpcMethod, type RpcRecorder, startRpcRecorder } from './record-rpc.js'
export {
  type FiatTokenUpstream,
  type StartFiatTokenUpstreamParameters,
  startFiatTokenUpstream,
} from './start-fiat-token-upstream.js'
