import { createHash, randomBytes } from 'node:crypto'
import type { KeyEnvironment } from '../http/app-env.js'

const keyPattern = /^sk_(test|live)_[0-9a-f]{64}$/

/** A freshly generated API key: the secret (shown once), its SHA-256 (hex) and its display prefix. */
export type GeneratedApiKey = { key: string; hash: string; prefix: string }

/** Generates `sk_test_…` / `sk_live_…` followed by 32 random bytes in hex. */
export function generateApiKey(environment: KeyEnvironment): GeneratedApiKey {
  const key = `sk_${environment}_${randomBytes(32).toString('hex')}`
  return { key, hash: hashApiKey(key), prefix: toKeyPrefix(key) }
}

/** SHA-256 of an API key as 64 hex chars: the only form stored at rest. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** The display prefix of a key (`sk_test_` plus its first 6 random chars). */
export function toKeyPrefix(key: string): string {
  return key.slice(0, 14)
}

/** The environment a well-formed key names, or `undefined` when the string is not an API key. */
export function parseKeyEnvironment(key: string): KeyEnvironment | undefined {
  const match = keyPattern.exec(key)
  return match ? (match[1] as KeyEnvironment) : undefined
}
