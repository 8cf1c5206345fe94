/** Canonical Uniswap Permit2, the same address on every chain (CREATE2 through {@link CREATE2_DEPLOYER_ADDRESS}). */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** x402's exact Permit2 proxy, the address the x402 SDKs hard-code; the devnet places our build of it there. */
export const X402_EXACT_PERMIT2_PROXY_ADDRESS = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001'

/** Canonical Multicall3 (viem's `multicall`, x402 facilitator diagnostics); the devnet places our build there. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** Arachnid's deterministic CREATE2 deployer, present in every anvil genesis: calldata = salt ++ init code. */
export const CREATE2_DEPLOYER_ADDRESS = '0x4e59b44847b379578588920cA78FbF26c0B4956C'

/** Uniswap's salt for Permit2: with its init code it lands at {@link PERMIT2_ADDRESS}. */
export const PERMIT2_SALT = '0x0000000000000000000000000000000000000000d3af2663da51c10215000000'

/**
 * Where the devnet puts its USDT-like token on chains that have no official testnet USDT
 * (Base Sepolia, Arbitrum Sepolia): the last 20 bytes of keccak256("tollgate:devnet:USDT").
 */
export const DEVNET_USDT_ADDRESS = '0xF71D5fd7d9fa429e57a8882f094F385eD64FF97f'
