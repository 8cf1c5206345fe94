import type { Deps } from '../deps.js'
import type { ApiKeyAuth } from '../http/app-env.js'
import { hashApiKey, parseKeyEnvironment } from './api-key.js'

/** Resolves a presented API key to its merchant, environment and format; `undefined` if unknown or revoked. */
export async function authenticateApiKey(
  deps: Pick<Deps, 'db'>,
  key: string,
): Promise<ApiKeyAuth | undefined> {
  const environment = parseKeyEnvironment(key)
  if (!environment) {
    return undefined
  }
  const row = await deps.db
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'environment', 'format'])
    .where('key_hash', '=', hashApiKey(key))
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  // The prefix is part of the hashed secret, so a stored row always matches it; checked anyway.
  if (!row || row.environment !== environment) {
    return undefined
  }
  return { keyId: row.id, merchantId: row.merchant_id, environment: row.environment, format: row.format }
}
