// Addresses of the contracts x402's exact EVM schemes rely on, the same on every chain. One home for
// the schemes (@tollgate/evm) and the local chains (@tollgate/devnet), which place them there.

/** Canonical Uniswap Permit2 (deployed with CREATE2: the same address on every chain). */
export const PERMIT2_ADDRESS: `0x${string}` = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** x402's exact Permit2 proxy (CREATE2, same address on every chain); the `spender` of exact Permit2 payments. */
export const X402_EXACT_PERMIT2_PROXY_ADDRESS: `0x${string}` = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001'

/** Canonical Multicall3 (deployed on nearly every EVM chain). */
export const MULTICALL3_ADDRESS: `0x${string}` = '0xcA11bde05977b3631167028862bE2a173976CA11'

/**
 * Safe 1.4.1's `SafeProxyFactory`, the same address on every public chain (and the devnet): the
 * ERC-6492 factory of counterfactual Safes, which the sandbox and devnet facilitators allowlist.
 */
export const SAFE_PROXY_FACTORY_ADDRESS: `0x${string}` = '0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67'
