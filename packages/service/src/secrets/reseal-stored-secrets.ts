import type { Deps } from '../deps.js'
import { getSealingKeyId, openSecret, sealSecret } from './seal-secret.js'

type Sealed = { secret: string; previous_secret: string | null }

/**
 * The start-up data migration and key rotation of stored secrets: every webhook secret (endpoint
 * and account, current and previous) stored in clear or under a key other than the keyring's
 * current one is encrypted again under the current key. Each row is replaced only if it still holds
 * what was read (several instances may run it at once). Returns how many rows were rewritten; throws
 * `secret_unreadable` when a row's key is missing from the keyring.
 */
export async function resealStoredSecrets(deps: Pick<Deps, 'db' | 'settings'>): Promise<number> {
  const keyring = deps.settings.secretKeyring
  const stale = (row: Sealed) =>
    [row.secret, row.previous_secret].some(
      (value) => value !== null && getSealingKeyId(value) !== keyring.currentKeyId,
    )
  const reseal = (value: string | null) =>
    value === null ? null : sealSecret(keyring, openSecret(keyring, value))
  let rewritten = 0
  const endpoints = await deps.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret', 'previous_secret'])
    .execute()
  for (const row of endpoints.filter(stale)) {
    const result = await deps.db
      .updateTable('webhook_endpoints')
      .set({ secret: reseal(row.secret) ?? row.secret, previous_secret: reseal(row.previous_secret) })
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .where((eb) =>
        row.previous_secret === null
          ? eb('previous_secret', 'is', null)
          : eb('previous_secret', '=', row.previous_secret),
      )
      .executeTakeFirst()
    rewritten += Number(result.numUpdatedRows)
  }
  const accounts = await deps.db
    .selectFrom('webhook_secrets')
    .select(['merchant_id', 'environment', 'secret', 'previous_secret'])
    .execute()
  for (const row of accounts.filter(stale)) {
    const result = await deps.db
      .updateTable('webhook_secrets')
      .set({ secret: reseal(row.secret) ?? row.secret, previous_secret: reseal(row.previous_secret) })
      .where('merchant_id', '=', row.merchant_id)
      .where('environment', '=', row.environment)
      .where('secret', '=', row.secret)
      .where((eb) =>
        row.previous_secret === null
          ? eb('previous_secret', 'is', null)
          : eb('previous_secret', '=', row.previous_secret),
      )
      .executeTakeFirst()
    rewritten += Number(result.numUpdatedRows)
  }
  return rewritten
}
