import { createRequire } from 'node:module'
import { dirname } from 'node:path'

// A tiny ABI word writer for the fixed-size EIP-712 structs of EIP-3009 and Permit2. Hashing
// through viem's generic hashTypedData costs more than the signature recovery itself, so the
// facilitator encodes these few static layouts by hand (tests pin them to hashTypedData).

// Keccak through the `keccak` addon (prebuilt binaries, like `secp256k1`; it falls back to its
// own pure JS elsewhere): ≈3 µs per hash against ≈16 µs for viem's pure-JS noble, and a verify
// hashes three times (struct, digest, recovered key). The package's `createKeccakHash` wraps each
// hash in a new stream `Transform` (stream states, an event emitter) costing more than the hash;
// its sponge state (`KeccakState`, the same native class or its JS fallback) is used directly,
// one instance re-initialized per hash (hashing is synchronous, so calls never interleave).
type KeccakState = {
  initialize(rate: number, capacity: number): void
  absorb(data: Buffer): void
  squeeze(length: number): Buffer
}
// Loaded on first use, not at import: payers and merchants import this package without hashing
// here, and must not load native addons (docs/packages.md).
let keccakState: KeccakState | undefined
function keccakSponge(): KeccakState {
  if (!keccakState) {
    const require = createRequire(import.meta.url)
    let State: new () => KeccakState
    try {
      // What `keccak`'s own entry does: its prebuilt addon through node-gyp-build (its dependency).
      const root = require.resolve('keccak/package.json')
      State = createRequire(root)('node-gyp-build')(dirname(root))
    } catch {
      State = require('keccak/lib/keccak.js') as new () => KeccakState
    }
    keccakState = new State()
  }
  return keccakState
}

const HEX_VALUES = new Int8Array(128).fill(-1)
for (let i = 0; i < 10; i++) {
  HEX_VALUES[48 + i] = i
}
for (let i = 0; i < 6; i++) {
  HEX_VALUES[65 + i] = 10 + i
  HEX_VALUES[97 + i] = 10 + i
}

/** Writes the hex string `hex` (with 0x) into `target` at `offset`, right-aligned in `width` bytes. */
export function writeHex(target: Uint8Array, offset: number, hex: string, width: number): void {
  const digits = hex.length - 2
  if (digits % 2 !== 0 || digits / 2 > width) {
    throw new RangeError('hex value does not fit')
  }
  const start = offset + width - digits / 2
  for (let i = 0; i < digits / 2; i++) {
    const hi = HEX_VALUES[hex.charCodeAt(2 + 2 * i)] ?? -1
    const lo = HEX_VALUES[hex.charCodeAt(3 + 2 * i)] ?? -1
    if (hi < 0 || lo < 0) {
      throw new RangeError('invalid hex')
    }
    target[start + i] = hi * 16 + lo
  }
}

/** Writes `value` as a big-endian uint256 word at `offset`. */
export function writeUint256(target: Uint8Array, offset: number, value: bigint): void {
  let rest = value
  for (let i = 31; i >= 0 && rest > 0n; i--) {
    target[offset + i] = Number(rest & 0xffn)
    rest >>= 8n
  }
}

/** keccak256 of raw bytes, as bytes. */
export function keccakBytes(data: Uint8Array): Uint8Array {
  const input = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const sponge = keccakSponge()
  // keccak256: rate 1088 bits, capacity 512, Keccak's own padding (not SHA-3's).
  sponge.initialize(1088, 512)
  sponge.absorb(input)
  return new Uint8Array(sponge.squeeze(32))
}

/** keccak256 of an ASCII/UTF-8 string, as bytes (type strings, domain names). */
export function keccakText(text: string): Uint8Array {
  return keccakBytes(new TextEncoder().encode(text))
}

/** The EIP-712 digest `keccak256(0x1901 ‖ domainSeparator ‖ structHash)`. */
export function toTypedDataDigest(domainSeparator: Uint8Array, structHash: Uint8Array): Uint8Array {
  const buffer = new Uint8Array(66)
  buffer[0] = 0x19
  buffer[1] = 0x01
  buffer.set(domainSeparator, 2)
  buffer.set(structHash, 34)
  return keccakBytes(buffer)
}
