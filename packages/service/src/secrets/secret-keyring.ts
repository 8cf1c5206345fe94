import { hkdfSync, randomBytes } from 'node:crypto'
import { AppError } from '@tollgate/core'

/**
 * The AES-256 keys that encrypt stored secrets: `currentKeyId` encrypts, every key in `keys`
 * decrypts (docs/security.md "Secrets at rest and environments").
 */
export type SecretKeyring = { currentKeyId: string; keys: ReadonlyMap<string, Buffer> }

const keyIdPattern = /^[A-Za-z0-9_-]{1,32}$/
const entryPattern = /^([A-Za-z0-9_-]{1,32}):([0-9a-fA-F]{64})$/

/**
 * Parses `TOLLGATE_SECRET_KEYS`: comma-separated `<keyId>:<64 hex digits>`, the first one current.
 * Throws `invalid_config` naming `env.TOLLGATE_SECRET_KEYS` (never the key material).
 */
export function parseSecretKeys(text: string): SecretKeyring {
  const keys = new Map<string, Buffer>()
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  for (const entry of entries) {
    const match = entryPattern.exec(entry)
    if (!match?.[1] || !match[2] || keys.has(match[1])) {
      throw keysError(
        'comma-separated <keyId>:<64 hex digits> entries (32-byte AES keys) with distinct ids, the current one first',
      )
    }
    keys.set(match[1], Buffer.from(match[2], 'hex'))
  }
  const currentKeyId = entries[0]?.split(':')[0]
  if (currentKeyId === undefined) {
    throw keysError('required: at least one <keyId>:<64 hex digits>')
  }
  return { currentKeyId, keys }
}

/** The sandbox's keyring: one key derived (HKDF-SHA256) from its deposit master seed, id `sandbox`. */
export function deriveSandboxSecretKeyring(masterSeedHex: string): SecretKeyring {
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(masterSeedHex, 'hex'), 'tollgate', 'stored secrets v1', 32),
  )
  return { currentKeyId: 'sandbox', keys: new Map([['sandbox', key]]) }
}

/** A keyring with one random key for this process only (tests, and settings nobody configured). */
export function generateSecretKeyring(keyId = 'generated'): SecretKeyring {
  if (!keyIdPattern.test(keyId)) {
    throw new AppError('invalid_config', {
      context: { issues: { keyId: 'letters, digits, _ and -, at most 32' } },
      message: `invalid secret key id ${keyId}`,
    })
  }
  return { currentKeyId: keyId, keys: new Map([[keyId, randomBytes(32)]]) }
}

function keysError(problem: string): AppError<'invalid_config'> {
  return new AppError('invalid_config', {
    context: { issues: { 'env.TOLLGATE_SECRET_KEYS': problem } },
    message: `env.TOLLGATE_SECRET_KEYS: ${problem}`,
  })
}
