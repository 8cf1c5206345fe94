import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>

/** `webhook_endpoints`: a merchant's webhook URLs per environment with their signing secrets. */
export interface WebhookEndpointsTable {
  id: string
  merchant_id: string
  environment: 'test' | 'live'
  url: string
  description: string | null
  enabled_events: string[]
  disabled: ColumnType<boolean, boolean | undefined, boolean>
  secret: string
  previous_secret: string | null
  previous_secret_expires_at: Date | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
  deleted_at: Date | null
}

/** `webhook_secrets`: the secret signing deliveries to per-object webhook URLs, per merchant and environment. */
export interface WebhookSecretsTable {
  merchant_id: string
  environment: 'test' | 'live'
  secret: string
  previous_secret: string | null
  previous_secret_expires_at: Date | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
}

/** Status of a delivery: attempts remain (`pending`), or it ended. */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed'

/** `webhook_deliveries`: one event to one endpoint (or to the event's own webhookUrl). */
export interface WebhookDeliveriesTable {
  id: string
  event_id: string
  endpoint_id: string | null
  merchant_id: string
  environment: 'test' | 'live'
  url: string
  status: WebhookDeliveryStatus
  attempts: ColumnType<number, number | undefined, number>
  max_attempts: number
  next_attempt_at: Date | null
  last_status_code: number | null
  last_error: string | null
  created_at: ColumnType<Date, Date | string, never>
  updated_at: Timestamp
  completed_at: Date | null
}

/** `webhook_attempts`: every HTTP attempt of a delivery. */
export interface WebhookAttemptsTable {
  id: string
  delivery_id: string
  attempt: number
  url: string
  started_at: ColumnType<Date, Date | string, never>
  duration_ms: number
  status_code: number | null
  succeeded: boolean
  error: string | null
  response_body: string | null
}

/** The tables of migration `0005-webhooks`. */
export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable
  webhook_secrets: WebhookSecretsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
}
