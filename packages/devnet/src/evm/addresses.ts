// Permit2 (CREATE2 through CREATE2_DEPLOYER_ADDRESS), the x402 exact proxy and Multicall3: the addresses
// the x402 SDKs hard-code, kept in core; the devnet places our builds there.
export { MULTICALL3_ADDRESS, PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '@tollgate/core'

/** Arachnid's deterministic CREATE2 deployer, present in every anvil genesis: calldata = salt ++ init code. */
export const CREATE2_DEPLOYER_ADDRESS = '0x4e59b44847b379578588920cA78FbF26c0B4956C'

/** Uniswap's salt for Permit2: with its init code it lands at {@link PERMIT2_ADDRESS}. */
export const PERMIT2_SALT = '0x0000000000000000000000000000000000000000d3af2663da51c10215000000'

/**
 * Where the devnet puts its USDT-like token on chains that have no official testnet USDT
 * (Base Sepolia, Arbitrum Sepolia): the last 20 bytes of keccak256("tollgate:devnet:USDT").
 */
export const DEVNET_USDT_ADDRESS = '0xF71D5fd7d9fa429e57a8882f094F385eD64FF97f'
