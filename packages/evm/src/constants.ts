// Permit2, the x402 exact proxy and Multicall3 live in core (one home for the schemes and the devnet).
export { MULTICALL3_ADDRESS, PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '@tollgate/core'

/** ERC-1271 `isValidSignature` magic value. */
export const ERC1271_MAGIC_VALUE = '0x1626ba7e'

/** Seconds an authorization must still be valid for when verified (the reference's 6 s margin). */
export const VALID_BEFORE_MARGIN_SECONDS = 6n

/** Default seconds a signed payment stays valid (x402 v2 server default). */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 300
