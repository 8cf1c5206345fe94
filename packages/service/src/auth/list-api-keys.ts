import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'

/** An API key as listed: never the secret or its hash, only the display prefix. */
export type ApiKeySummary = {
  id: string
  merchantId: string
  environment: KeyEnvironment
  format: ResponseFormat
  prefix: string
  label: string | null
  createdAt: Date
  revokedAt: Date | null
}

/** Lists API keys, all or one merchant's, oldest first. */
export async function listApiKeys(
  deps: Pick<Deps, 'db'>,
  input: { merchantId?: string } = {},
): Promise<ApiKeySummary[]> {
  let query = deps.db
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'environment', 'format', 'prefix', 'label', 'created_at', 'revoked_at'])
    .orderBy('created_at')
    .orderBy('id')
  if (input.merchantId !== undefined) {
    query = query.where('merchant_id', '=', input.merchantId)
  }
  const rows = await query.execute()
  return rows.map((row) => ({
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    format: row.format,
    prefix: row.prefix,
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }))
}
