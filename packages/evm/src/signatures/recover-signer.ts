import { createRequire } from 'node:module'
import { bytesToHex, type Hex } from 'viem'
import { keccakBytes, writeHex } from '../rpc/abi-words.js'

// Signature recovery is the hot path of verify. libsecp256k1 through the `secp256k1` addon
// (prebuilt binaries, loaded by node-gyp-build) recovers many times faster than pure-JS noble:
// the `recover.*` rows of bench/evm-verify.ts measure our digest and recovery against viem's
// pure-JS path (`recoverSpeedup` in bench/results/evm-verify.json). The package
// falls back to its own pure-JS implementation when the addon cannot load.
type Secp256k1 = {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array
}
// Loaded on first use (like `keccak` in ../rpc/abi-words.ts): importing the package loads no addon.
let secp256k1: Secp256k1 | undefined
const loadSecp256k1 = (): Secp256k1 =>
  (secp256k1 ??= createRequire(import.meta.url)('secp256k1') as Secp256k1)

// secp256k1 group order n and n/2 (EIP-2: signatures with s > n/2 are malleable duplicates).
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/** Options of {@link recoverSigner}. */
export type RecoverSignerOptions = {
  /** Reject signatures whose `s` is in the upper half (as OpenZeppelin's ECDSA and FiatToken do). */
  rejectHighS?: boolean
}

/**
 * Recovers the lowercase address that signed the 32-byte `digest` with a 65-byte `r ‖ s ‖ v`
 * signature (v = 27/28 or 0/1). `undefined` when the signature is malformed or unrecoverable.
 */
export function recoverSigner(
  digest: Uint8Array,
  signature: Hex,
  options: RecoverSignerOptions = {},
): Hex | undefined {
  if (signature.length !== 132) {
    return undefined
  }
  const bytes = new Uint8Array(65)
  try {
    writeHex(bytes, 0, signature, 65)
  } catch {
    return undefined
  }
  const v = bytes[64] ?? 0
  const recid = v >= 27 ? v - 27 : v
  if (recid !== 0 && recid !== 1) {
    return undefined
  }
  if (options.rejectHighS && BigInt(`0x${signature.slice(66, 130)}`) > HALF_N) {
    return undefined
  }
  try {
    const publicKey = loadSecp256k1().ecdsaRecover(bytes.subarray(0, 64), recid, digest, false)
    return bytesToHex(keccakBytes(publicKey.subarray(1)).subarray(12))
  } catch {
    return undefined
  }
}
