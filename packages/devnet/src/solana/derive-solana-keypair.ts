import { createHash, createPrivateKey, createPublicKey } from 'node:crypto'
import { type Address, getAddressDecoder, getBase58Decoder } from '@solana/kit'

/** A Solana keypair: the address and the base58 64-byte secret key (seed ‖ public key, the CLI/Phantom format). */
export type SolanaKeypair = { address: Address; secretKey: Uint8Array; privateKey: string }

// PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/** Derives a deterministic Ed25519 keypair from a label (seed = sha256 of the label), so devnet keys are reproducible. */
export function deriveSolanaKeypair(label: string): SolanaKeypair {
  const seed = createHash('sha256').update(`tollgate-devnet:${label}`).digest()
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  })
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
  const publicKey = new Uint8Array(spki.subarray(spki.length - 32))
  const secretKey = new Uint8Array(64)
  secretKey.set(seed, 0)
  secretKey.set(publicKey, 32)
  return {
    address: getAddressDecoder().decode(publicKey),
    secretKey,
    privateKey: getBase58Decoder().decode(secretKey),
  }
}
