import { type Address, getAddressDecoder, getAddressEncoder } from '@solana/kit'
import { LRUCache } from 'lru-cache'

/**
 * A public key as a 32-character latin1 string of its bytes: what the facilitator compares and
 * hashes on its hot path, since base58 (the `Address` form) costs tens of microseconds per key to
 * encode or decode in JavaScript.
 */
export type RawKey = string & { readonly __rawKey: unique symbol }

const encoder = getAddressEncoder()
const decoder = getAddressDecoder()
/** Conversions remembered each way (least recently used go first): payers repeat, but are chosen by callers. */
export const KEY_CACHE_SIZE = 10_000
const NOT_A_KEY = false
const rawByAddress = new LRUCache<string, RawKey | typeof NOT_A_KEY>({ max: KEY_CACHE_SIZE })
const addressByRaw = new LRUCache<RawKey, Address>({ max: KEY_CACHE_SIZE })

/** The raw key of a base58 address, or `undefined` when it is not a 32-byte base58 address. */
export function toRawKey(address: string): RawKey | undefined {
  let raw = rawByAddress.get(address)
  if (raw === undefined) {
    try {
      raw = Buffer.from(encoder.encode(address as Address)).toString('latin1') as RawKey
    } catch {
      raw = NOT_A_KEY
    }
    rawByAddress.set(address, raw)
  }
  return raw === NOT_A_KEY ? undefined : raw
}

/** The raw key of 32 bytes at `offset` of `bytes`. */
export function readRawKey(bytes: Buffer, offset: number): RawKey {
  return bytes.toString('latin1', offset, offset + 32) as RawKey
}

/** The base58 address of a raw key. */
export function toAddress(raw: RawKey): Address {
  let address = addressByRaw.get(raw)
  if (address === undefined) {
    address = decoder.decode(Buffer.from(raw, 'latin1'))
    addressByRaw.set(raw, address)
  }
  return address
}

/** How many conversions each way the key caches hold (for memory tests and monitoring). */
export function getKeyCacheSizes(): { rawByAddress: number; addressByRaw: number } {
  return { rawByAddress: rawByAddress.size, addressByRaw: addressByRaw.size }
}

/** The 32 bytes of a raw key. */
export function toKeyBytes(raw: RawKey): Buffer {
  return Buffer.from(raw, 'latin1')
}
