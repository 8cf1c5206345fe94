import { bytesToHex, type Hex } from 'viem'

/** 32 cryptographically random bytes as 0x-hex (EIP-3009 nonces). */
export function createRandomBytes32(): Hex {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(32)))
}

/** A random uint256 as a decimal string (Permit2 unordered nonces). */
export function createRandomUint256(): string {
  return BigInt(createRandomBytes32()).toString()
}
