import { type Address, getAddressDecoder, getAddressEncoder } from '@solana/kit'

/**
 * A public key as a 32-character latin1 string of its bytes: what the facilitator compares and
 * hashes on its hot path, since base58 (the `Address` form) costs tens of microseconds per key to
 * encode or decode in JavaScript.
 */
export type RawKey = string & { readonly __rawKey: unique symbol }

const encoder = getAddressEncoder()
const decoder = getAddressDecoder()
const CACHE_SIZE = 10_000
const rawByAddress = new Map<string, RawKey | null>()
const addressByRaw = new Map<RawKey, Address>()

function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE_SIZE) {
    cache.clear()
  }
  cache.set(key, value)
  return value
}

/** The raw key of a base58 address, or `undefined` when it is not a 32-byte base58 address. */
export function toRawKey(address: string): RawKey | undefined {
  let raw = rawByAddress.get(address)
  if (raw === undefined) {
    try {
      raw = Buffer.from(encoder.encode(address as Address)).toString('latin1') as RawKey
    } catch {
      raw = null
    }
    remember(rawByAddress, address, raw)
  }
  return raw ?? undefined
}

/** The raw key of 32 bytes at `offset` of `bytes`. */
export function readRawKey(bytes: Buffer, offset: number): RawKey {
  return bytes.toString('latin1', offset, offset + 32) as RawKey
}

/** The base58 address of a raw key. */
export function toAddress(raw: RawKey): Address {
  return addressByRaw.get(raw) ?? remember(addressByRaw, raw, decoder.decode(Buffer.from(raw, 'latin1')))
}

/** The 32 bytes of a raw key. */
export function toKeyBytes(raw: RawKey): Buffer {
  return Buffer.from(raw, 'latin1')
}
