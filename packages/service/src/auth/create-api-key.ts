import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import { generateApiKey } from './api-key.js'

/** Input of {@link createApiKey}. */
export type CreateApiKeyInput = {
  merchantId: string
  environment: KeyEnvironment
  format?: ResponseFormat
  label?: string
}

/** A created key: `key` is the secret, returned this once and never stored. */
export type CreatedApiKey = {
  id: string
  key: string
  prefix: string
  merchantId: string
  environment: KeyEnvironment
  format: ResponseFormat
  createdAt: Date
}

/** Creates an API key for a merchant; throws `not_found` when the merchant does not exist. */
export async function createApiKey(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: CreateApiKeyInput,
): Promise<CreatedApiKey> {
  const merchant = await deps.db
    .selectFrom('merchants')
    .select('id')
    .where('id', '=', input.merchantId)
    .executeTakeFirst()
  if (!merchant) {
    throw new AppError('not_found', {
      message: `Merchant ${input.merchantId} not found`,
      context: { param: 'merchant' },
    })
  }
  const generated = generateApiKey(input.environment)
  const format = input.format ?? 'current'
  const row = await deps.db
    .insertInto('api_keys')
    .values({
      id: deps.ids.create('key'),
      merchant_id: input.merchantId,
      environment: input.environment,
      format,
      key_hash: generated.hash,
      prefix: generated.prefix,
      label: input.label ?? null,
      created_at: deps.clock.now(),
    })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow()
  return {
    id: row.id,
    key: generated.key,
    prefix: generated.prefix,
    merchantId: input.merchantId,
    environment: input.environment,
    format,
    createdAt: row.created_at,
  }
}
