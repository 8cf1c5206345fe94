import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { DecodedPaymentTransaction } from './decode-payment-transaction.js'
import { KEY_CACHE_SIZE, type RawKey, toKeyBytes } from './raw-keys.js'

// Ed25519 SPKI DER prefix: node:crypto takes a raw 32-byte public key after it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/**
 * Public keys in both forms, built once: payers repeat, and building a key costs about a
 * verification. Bounded (least recently used go first), since callers choose the signers.
 */
const NOT_A_KEY = false
const keyObjects = new LRUCache<RawKey, KeyObject | typeof NOT_A_KEY>({ max: KEY_CACHE_SIZE })
const cryptoKeys = new LRUCache<RawKey, Promise<CryptoKey>>({ max: KEY_CACHE_SIZE })

/** How many public keys each cache holds (for memory tests and monitoring). */
export function getSignerKeyCacheSizes(): { keyObjects: number; cryptoKeys: number } {
  return { keyObjects: keyObjects.size, cryptoKeys: cryptoKeys.size }
}

function getKeyObject(signer: RawKey): KeyObject | typeof NOT_A_KEY {
  let key = keyObjects.get(signer)
  if (key !== undefined) {
    return key
  }
  try {
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, toKeyBytes(signer)]),
      format: 'der',
      type: 'spki',
    })
  } catch {
    key = NOT_A_KEY
  }
  keyObjects.set(signer, key)
  return key
}

function getCryptoKey(signer: RawKey): Promise<CryptoKey> {
  let key = cryptoKeys.get(signer)
  if (!key) {
    key = crypto.subtle.importKey('raw', new Uint8Array(toKeyBytes(signer)), 'Ed25519', false, ['verify'])
    key.catch(() => cryptoKeys.delete(signer))
    cryptoKeys.set(signer, key)
  }
  return key
}

function verifyNow(signer: RawKey, signature: Buffer, message: Buffer): boolean {
  const key = getKeyObject(signer)
  try {
    return key !== NOT_A_KEY && verify(null, message, key, signature)
  } catch {
    return false
  }
}

async function verifyOnThreadPool(signer: RawKey, signature: Buffer, message: Buffer): Promise<boolean> {
  try {
    return await crypto.subtle.verify(
      'Ed25519',
      await getCryptoKey(signer),
      asView(signature),
      asView(message),
    )
  } catch {
    // Not a valid curve point: no signature can verify against it.
    return false
  }
}

/**
 * Whether every required signer except the fee payer (static account 0) has a valid Ed25519
 * signature over the message bytes; the simulation later runs with `sigVerify: false`, so this is
 * the real signature check. Both ways are OpenSSL and cost the same CPU (bench/svm-verify.ts,
 * `ed25519.*`); they differ in where it runs. `offload: false` verifies at once with
 * `node:crypto.verify` on the event loop: the lowest latency when nothing else is waiting for the
 * loop (one verify at a time: about 35 us less per verify than the thread-pool round trip).
 * `offload: true` uses WebCrypto, which Node runs on libuv's thread pool, so that many concurrent
 * verifies spread over the cores instead of queueing on the event loop.
 */
export async function verifyTransactionSignatures(
  { signatures, messageBytes, message }: DecodedPaymentTransaction,
  options: { offload: boolean },
): Promise<boolean> {
  const checks: Promise<boolean>[] = []
  for (let i = 1; i < message.numSigners; i++) {
    const signer = message.accountKeys[i]
    const signature = signatures[i]
    if (!signer || !signature) {
      return false
    }
    if (!options.offload) {
      if (!verifyNow(signer, signature, messageBytes)) {
        return false
      }
    } else {
      checks.push(verifyOnThreadPool(signer, signature, messageBytes))
    }
  }
  return (await Promise.all(checks)).every(Boolean)
}

// WebCrypto wants views over plain ArrayBuffers; the wire bytes are one (a Buffer from base64).
function asView(bytes: Buffer): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array as Uint8Array<ArrayBuffer>
}
