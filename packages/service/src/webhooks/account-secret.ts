import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { Db } from '../rails/types.js'
import { openSecret, sealSecret } from '../secrets/seal-secret.js'
import { createWebhookSecret } from './sign-webhook.js'
import { secretRotationGraceMs } from './webhook-endpoints.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** The account secret and, during a rotation, the previous one still signing (docs/webhooks.md). */
export type AccountSecret = {
  secret: string
  previousSecret: string | null
  previousSecretExpiresAt: Date | null
}

/**
 * The secret signing deliveries to per-object webhook URLs (a session's, payout's or swap's own
 * `webhookUrl`) of a merchant in an environment, created at first use; stored encrypted, returned in clear.
 */
export async function getAccountSecret(
  db: Db,
  deps: Pick<Deps, 'clock' | 'settings'>,
  input: Scope,
): Promise<AccountSecret> {
  const now = deps.clock.now()
  await db
    .insertInto('webhook_secrets')
    .values({
      merchant_id: input.merchantId,
      environment: input.environment,
      secret: sealSecret(deps.settings.secretKeyring, createWebhookSecret()),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['merchant_id', 'environment']).doNothing())
    .execute()
  const row = await db
    .selectFrom('webhook_secrets')
    .select(['secret', 'previous_secret', 'previous_secret_expires_at'])
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .executeTakeFirstOrThrow()
  const keyring = deps.settings.secretKeyring
  return {
    secret: openSecret(keyring, row.secret),
    previousSecret: row.previous_secret === null ? null : openSecret(keyring, row.previous_secret),
    previousSecretExpiresAt: row.previous_secret_expires_at,
  }
}

/** Replaces the account secret (both stored encrypted); the previous one keeps signing for 24 hours. Returns them in clear. */
export async function rotateAccountSecret(
  db: Db,
  deps: Pick<Deps, 'clock' | 'settings'>,
  input: Scope,
): Promise<AccountSecret> {
  const current = await getAccountSecret(db, deps, input)
  const now = deps.clock.now()
  const next = {
    secret: createWebhookSecret(),
    previousSecret: current.secret,
    previousSecretExpiresAt: new Date(now.getTime() + secretRotationGraceMs),
  }
  await db
    .updateTable('webhook_secrets')
    .set({
      secret: sealSecret(deps.settings.secretKeyring, next.secret),
      previous_secret: sealSecret(deps.settings.secretKeyring, next.previousSecret),
      previous_secret_expires_at: next.previousSecretExpiresAt,
      updated_at: now,
    })
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .execute()
  return next
}
