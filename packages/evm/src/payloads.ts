import { z } from 'zod'

const MAX_UINT256 = (1n << 256n) - 1n

const HexAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address')
  .describe('EVM address, 0x-hex')
const Bytes32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x-prefixed 32 bytes')
  .describe('32 bytes, 0x-hex')
const HexBytes = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2})+$/, 'must be 0x-prefixed bytes')
  .describe('signature bytes, 0x-hex')
const Uint256String = z
  .string()
  // `abort`: zod 4 runs later checks after a failed one, and BigInt('12abc') throws.
  .regex(/^(0|[1-9]\d{0,77})$/, { message: 'must be an unsigned integer as a decimal string', abort: true })
  .refine((value) => BigInt(value) <= MAX_UINT256, 'must fit in uint256')
  .describe('uint256 as a decimal string')

/** An EIP-3009 `TransferWithAuthorization` as x402 sends it (all fields strings). */
export const Eip3009Authorization = z.object({
  from: HexAddress,
  to: HexAddress,
  value: Uint256String,
  validAfter: Uint256String.describe('unix seconds; the transfer is valid strictly after it'),
  validBefore: Uint256String.describe('unix seconds; the transfer is valid strictly before it'),
  nonce: Bytes32.describe('32 random bytes chosen by the payer'),
})
export type Eip3009Authorization = z.infer<typeof Eip3009Authorization>

/** The `payload` of an x402 exact EVM payment via EIP-3009: `{ signature, authorization }`. */
export const Eip3009Payload = z.object({
  signature: HexBytes.describe('EIP-712 signature (65-byte ECDSA, ERC-1271 or ERC-6492 wrapped)'),
  authorization: Eip3009Authorization,
})
export type Eip3009Payload = z.infer<typeof Eip3009Payload>

/** A Permit2 `PermitWitnessTransferFrom` with x402's exact witness, as x402 sends it. */
export const Permit2Authorization = z.object({
  from: HexAddress.describe('token owner (payer)'),
  permitted: z.object({ token: HexAddress, amount: Uint256String }),
  spender: HexAddress.describe('the x402 exact Permit2 proxy'),
  nonce: Uint256String.describe('Permit2 unordered nonce'),
  deadline: Uint256String.describe('unix seconds after which the signature is expired'),
  witness: z.object({ to: HexAddress, validAfter: Uint256String }),
})
export type Permit2Authorization = z.infer<typeof Permit2Authorization>

/** The `payload` of an x402 exact EVM payment via Permit2: `{ signature, permit2Authorization }`. */
export const Permit2Payload = z.object({
  signature: HexBytes,
  permit2Authorization: Permit2Authorization,
})
export type Permit2Payload = z.infer<typeof Permit2Payload>
