import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import { type Address, getAddressEncoder } from '@solana/kit'
import type { DecodedPaymentTransaction } from './decode-payment-transaction.js'

// Ed25519 SubjectPublicKeyInfo DER prefix: node:crypto takes a raw 32-byte key wrapped in it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
const addressEncoder = getAddressEncoder()
/** Parsed public keys by address; payers repeat, and parsing costs about as much as verifying. */
const keyCache = new Map<Address, KeyObject>()
const KEY_CACHE_SIZE = 10_000

function getPublicKey(signer: Address): KeyObject {
  let key = keyCache.get(signer)
  if (!key) {
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, addressEncoder.encode(signer) as Uint8Array]),
      format: 'der',
      type: 'spki',
    })
    if (keyCache.size >= KEY_CACHE_SIZE) {
      const oldest = keyCache.keys().next()
      if (!oldest.done) {
        keyCache.delete(oldest.value)
      }
    }
    keyCache.set(signer, key)
  }
  return key
}

/**
 * Whether every required signer except the fee payer (static account 0) has a present, valid
 * Ed25519 signature over the message bytes. Synchronous `node:crypto` (OpenSSL): several times
 * faster than WebCrypto's async `verify`, and the simulation later runs with `sigVerify: false`,
 * so this is the real signature check.
 */
export function verifyTransactionSignatures({ transaction, message }: DecodedPaymentTransaction): boolean {
  const messageBytes = transaction.messageBytes as unknown as Uint8Array
  for (let i = 1; i < message.header.numSignerAccounts; i++) {
    const signer = message.staticAccounts[i]
    const signature = signer ? transaction.signatures[signer] : undefined
    if (!signer || !signature) {
      return false
    }
    try {
      if (!verify(null, messageBytes, getPublicKey(signer), signature as Uint8Array)) {
        return false
      }
    } catch {
      // Not a valid curve point: no signature can verify against it.
      return false
    }
  }
  return true
}
