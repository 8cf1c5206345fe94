import type { Address } from 'viem'

/** Canonical Uniswap Permit2 (same address on every chain). */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** x402's exact Permit2 proxy (CREATE2, same address on every chain); the `spender` of exact Permit2 payments. */
export const X402_EXACT_PERMIT2_PROXY_ADDRESS: Address = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001'

/** Canonical Multicall3 (deployed on nearly every EVM chain). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** ERC-1271 `isValidSignature` magic value. */
export const ERC1271_MAGIC_VALUE = '0x1626ba7e'

/** Seconds an authorization must still be valid for when verified (the reference's 6 s margin). */
export const VALID_BEFORE_MARGIN_SECONDS = 6n

/** Default seconds a signed payment stays valid (x402 v2 server default). */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 300
