import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/** A new Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function createWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/** The headers of one signed delivery (Standard Webhooks). */
export type WebhookHeaders = {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

/**
 * Signs `body` for delivery `id` at `timestamp` with every secret in `secrets` (the current one, and
 * during a rotation the previous one): one `v1,<base64 HMAC-SHA256>` per secret, space-separated,
 * as the Standard Webhooks verifiers expect.
 */
export function signWebhook(input: {
  id: string
  timestamp: Date
  body: string
  secrets: string[]
}): WebhookHeaders {
  const signatures = input.secrets.map((secret) =>
    new Webhook(secret).sign(input.id, input.timestamp, input.body),
  )
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(Math.floor(input.timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
