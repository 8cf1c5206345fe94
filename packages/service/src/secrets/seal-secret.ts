import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { AppError } from '@tollgate/core'
import type { SecretKeyring } from './secret-keyring.js'

const prefix = 'enc:v1:'

/**
 * Encrypts a secret with the keyring's current key (AES-256-GCM, random 96-bit IV):
 * `enc:v1:<keyId>:<iv>:<ciphertext and tag>`, base64url. The key id travels with the ciphertext.
 */
export function sealSecret(keyring: SecretKeyring, plaintext: string): string {
  const key = keyring.keys.get(keyring.currentKeyId)
  if (!key) {
    throw unreadable(keyring.currentKeyId, 'the current key is not in the keyring')
  }
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return `${prefix}${keyring.currentKeyId}:${iv.toString('base64url')}:${sealed.toString('base64url')}`
}

/**
 * Decrypts what {@link sealSecret} stored. A value without the `enc:v1:` prefix is a row written in
 * clear before encryption (or by an older instance during an upgrade) and is returned as it is;
 * the start-up pass encrypts such rows. Throws `secret_unreadable` for an unknown key id or a
 * ciphertext that does not authenticate.
 */
export function openSecret(keyring: SecretKeyring, stored: string): string {
  if (!stored.startsWith(prefix)) {
    return stored
  }
  const [keyId = '', iv = '', sealed = ''] = stored.slice(prefix.length).split(':')
  const key = keyring.keys.get(keyId)
  if (!key) {
    throw unreadable(keyId, 'no key with this id in TOLLGATE_SECRET_KEYS')
  }
  try {
    const bytes = Buffer.from(sealed, 'base64url')
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(bytes.subarray(bytes.length - 16))
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
      'utf8',
    )
  } catch (cause) {
    throw unreadable(keyId, 'the ciphertext does not authenticate under its key', cause)
  }
}

/** The key id a stored value is encrypted under, or `null` for a value stored in clear. */
export function getSealingKeyId(stored: string): string | null {
  return stored.startsWith(prefix) ? (stored.slice(prefix.length).split(':')[0] ?? null) : null
}

function unreadable(keyId: string, problem: string, cause?: unknown): AppError<'secret_unreadable'> {
  return new AppError('secret_unreadable', {
    context: { keyId },
    message: `A stored secret under key ${keyId} cannot be decrypted: ${problem}`,
    ...(cause === undefined ? {} : { cause }),
  })
}
