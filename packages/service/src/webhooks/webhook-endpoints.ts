import { z } from '@hono/zod-openapi'
import { AppError } from '@tollgate/core'
import type { Selectable } from 'kysely'
import type { WebhookEndpointsTable } from '../db/schema/webhooks.js'
import type { Deps } from '../deps.js'
import { toCurrentEventType } from '../events/event-types.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { sealSecret } from '../secrets/seal-secret.js'
import { assertWebhookUrl } from './assert-webhook-url.js'
import { createWebhookSecret } from './sign-webhook.js'

/** A webhook endpoint row as read from the database. */
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>

/** The WebhookEndpoint resource of the API; `secret` only in the answers of create and rotate-secret. */
export const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: 'whe_3f2a9c0d1e2b4a5c6d7e8f90' }),
    url: z.string(),
    description: z.string().nullable(),
    enabledEvents: z.array(z.string()).describe('event types delivered here; `*` for all'),
    status: z.enum(['enabled', 'disabled']),
    secret: z
      .string()
      .optional()
      .describe(
        '`whsec_…` signing secret; shown only when created or rotated (not when an `Idempotency-Key` replays that answer)',
      ),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .describe('ISO 8601; until then deliveries carry a second signature made with the previous secret'),
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
  })
  .openapi('WebhookEndpoint')
/** The WebhookEndpoint resource of the API. */
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>

/** Renders an endpoint row; the secret only when `withSecret` (create and rotate answers). */
export function toWebhookEndpointResponse(row: WebhookEndpointRow, withSecret = false): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabledEvents: row.enabled_events,
    status: row.disabled ? 'disabled' : 'enabled',
    ...(withSecret ? { secret: row.secret } : {}),
    previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

type Scope = { merchantId: string; environment: KeyEnvironment }
type EndpointDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'settings'>

/** How long a rotated-out secret keeps signing deliveries (24 hours). */
export const secretRotationGraceMs = 24 * 3_600_000

// Stored under their current names, so an endpoint matches an event whatever the key's format.
function normalizeEvents(events: string[]): string[] {
  const names = [...new Set(events.map(toCurrentEventType))]
  return names.includes('*') ? ['*'] : names.sort()
}

/**
 * Creates an endpoint for the merchant and environment with a fresh secret, stored encrypted; the
 * returned row holds the secret in clear (for the create answer only).
 */
export async function createWebhookEndpoint(
  deps: EndpointDeps,
  input: Scope & {
    url: string
    description?: string | null | undefined
    enabledEvents?: string[] | undefined
  },
): Promise<WebhookEndpointRow> {
  assertWebhookUrl(deps.settings, input.environment, input.url)
  const now = deps.clock.now()
  const secret = createWebhookSecret()
  const row = await deps.db
    .insertInto('webhook_endpoints')
    .values({
      id: deps.ids.create('whe'),
      merchant_id: input.merchantId,
      environment: input.environment,
      url: input.url,
      description: input.description ?? null,
      enabled_events: normalizeEvents(input.enabledEvents ?? ['*']),
      secret: sealSecret(deps.settings.secretKeyring, secret),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return { ...row, secret }
}

/** A page of the merchant's endpoints in an environment, newest first, and the total. */
export async function listWebhookEndpoints(
  deps: Pick<Deps, 'db'>,
  input: Scope & { page: number; size: number },
): Promise<{ items: WebhookEndpointRow[]; total: number }> {
  const base = deps.db
    .selectFrom('webhook_endpoints')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('deleted_at', 'is', null)
  const [items, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(input.size)
      .offset((input.page - 1) * input.size)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(count.n) }
}

/** One endpoint of the merchant in the environment; a 404 `not_found` otherwise (or when deleted). */
export async function getWebhookEndpoint(
  deps: Pick<Deps, 'db'>,
  input: Scope & { id: string },
): Promise<WebhookEndpointRow> {
  const row = await deps.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', input.id)
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  if (!row) {
    throw new AppError('not_found', {
      message: `Webhook endpoint ${input.id} not found`,
      context: { param: 'id' },
    })
  }
  return row
}

/** Changes an endpoint's url, description, event types or status; 404 when it is not the caller's. */
export async function updateWebhookEndpoint(
  deps: EndpointDeps,
  input: Scope & {
    id: string
    url?: string | undefined
    description?: string | null | undefined
    enabledEvents?: string[] | undefined
    status?: 'enabled' | 'disabled' | undefined
  },
): Promise<WebhookEndpointRow> {
  if (input.url !== undefined) {
    assertWebhookUrl(deps.settings, input.environment, input.url)
  }
  await getWebhookEndpoint(deps, input)
  return deps.db
    .updateTable('webhook_endpoints')
    .set({
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.enabledEvents === undefined ? {} : { enabled_events: normalizeEvents(input.enabledEvents) }),
      ...(input.status === undefined ? {} : { disabled: input.status === 'disabled' }),
      updated_at: deps.clock.now(),
    })
    .where('id', '=', input.id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Deletes an endpoint (kept for its delivery history; its pending deliveries end as failed). */
export async function deleteWebhookEndpoint(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: Scope & { id: string },
): Promise<WebhookEndpointRow> {
  await getWebhookEndpoint(deps, input)
  const now = deps.clock.now()
  return deps.db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/**
 * Gives an endpoint a new secret (stored encrypted; the returned row holds it in clear); the
 * previous one keeps signing for {@link secretRotationGraceMs}.
 */
export async function rotateWebhookEndpointSecret(
  deps: Pick<Deps, 'db' | 'clock' | 'settings'>,
  input: Scope & { id: string },
): Promise<WebhookEndpointRow> {
  const current = await getWebhookEndpoint(deps, input)
  const now = deps.clock.now()
  const secret = createWebhookSecret()
  const row = await deps.db
    .updateTable('webhook_endpoints')
    .set({
      secret: sealSecret(deps.settings.secretKeyring, secret),
      // Still encrypted as stored: it is read back only to sign.
      previous_secret: current.secret,
      previous_secret_expires_at: new Date(now.getTime() + secretRotationGraceMs),
      updated_at: now,
    })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  return { ...row, secret }
}
