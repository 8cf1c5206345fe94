import type { DecodedPaymentTransaction } from './decode-payment-transaction.js'
import { type RawKey, toKeyBytes } from './raw-keys.js'

const KEY_CACHE_SIZE = 10_000
/** Imported public keys; payers repeat, and importing a key costs about as much as a verification. */
const keys = new Map<RawKey, Promise<CryptoKey>>()

function getKey(signer: RawKey): Promise<CryptoKey> {
  let key = keys.get(signer)
  if (!key) {
    key = crypto.subtle.importKey('raw', new Uint8Array(toKeyBytes(signer)), 'Ed25519', false, ['verify'])
    key.catch(() => keys.delete(signer))
    if (keys.size >= KEY_CACHE_SIZE) {
      keys.clear()
    }
    keys.set(signer, key)
  }
  return key
}

async function verifyEd25519(signer: RawKey, signature: Buffer, message: Buffer): Promise<boolean> {
  try {
    return await crypto.subtle.verify('Ed25519', await getKey(signer), asView(signature), asView(message))
  } catch {
    // Not a valid curve point: no signature can verify against it.
    return false
  }
}

/**
 * Whether every required signer except the fee payer (static account 0) has a valid Ed25519
 * signature over the message bytes; the simulation later runs with `sigVerify: false`, so this is
 * the real signature check. WebCrypto (what kit's `verifySignature` calls) with cached keys:
 * bench/svm-verify.ts measured it against synchronous `node:crypto.verify` and it costs the same
 * CPU, but Node runs it on libuv's thread pool, off the event loop, so verify overlaps it with
 * the simulation's round trip (about 80 µs less latency per verify at concurrency 1).
 */
export async function verifyTransactionSignatures({
  signatures,
  messageBytes,
  message,
}: DecodedPaymentTransaction): Promise<boolean> {
  const checks: Promise<boolean>[] = []
  for (let i = 1; i < message.numSigners; i++) {
    const signer = message.accountKeys[i]
    const signature = signatures[i]
    if (!signer || !signature) {
      return false
    }
    checks.push(verifyEd25519(signer, signature, messageBytes))
  }
  return (await Promise.all(checks)).every(Boolean)
}

// WebCrypto wants views over plain ArrayBuffers; the wire bytes are one (a Buffer from base64).
function asView(bytes: Buffer): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array as Uint8Array<ArrayBuffer>
}
