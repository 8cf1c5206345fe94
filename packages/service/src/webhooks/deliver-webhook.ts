import { sql } from 'kysely'
import type { Deps } from '../deps.js'
import type { OutboundHttp, OutboundResult } from '../http/create-outbound-http.js'
import { createBatcher } from '../jobs/create-batcher.js'
import type { JobOutcome } from '../jobs/create-job-runner.js'
import type { Db } from '../rails/types.js'
import { openSecret } from '../secrets/seal-secret.js'
import { getAccountSecret } from './account-secret.js'
import { allowsLoopbackWebhooks } from './assert-webhook-url.js'
import { signWebhook } from './sign-webhook.js'
import type { WebhookMetrics } from './webhook-metrics.js'

/** What delivering needs: the deps, the guarded outbound client and (optionally) metrics. */
export type WebhookDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'logger' | 'settings'> & {
  http: OutboundHttp
  metrics?: WebhookMetrics | undefined
}

/** One logged attempt, as {@link deliverWebhook} recorded it. */
export type WebhookAttemptResult = {
  deliveryId: string
  attempt: number
  succeeded: boolean
  statusCode: number | null
  durationMs: number
  error: string | null
  status: 'pending' | 'succeeded' | 'failed'
  nextAttemptAt: Date | null
}

/** `delay` ± 20 %, so receivers that came back are not hit by every retry at the same instant. */
export function withJitter(delayMs: number, random = Math.random): number {
  return Math.round(delayMs * (0.8 + random() * 0.4))
}

function toOutcome(result: OutboundResult): string {
  if (result.error) {
    return result.error.code
  }
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
    ? 'success'
    : 'http_error'
}

function describeFailure(result: OutboundResult): string | null {
  if (result.error) {
    return `${result.error.code}: ${result.error.message}`.slice(0, 1_000)
  }
  if (result.statusCode !== null && (result.statusCode < 200 || result.statusCode >= 300)) {
    return `http_status: HTTP ${result.statusCode}`
  }
  return null
}

function selectDeliveries(db: Db, ids: string[]) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .leftJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.event_id',
      'd.endpoint_id',
      'd.merchant_id',
      'd.environment',
      'd.url',
      'd.status',
      'd.attempts',
      'd.max_attempts',
      'd.next_attempt_at',
      'e.payload',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'w.disabled',
      'w.deleted_at',
    ])
    .where('d.id', 'in', ids)
    .execute()
}

/** One attempt to log: the `webhook_attempts` row and the delivery's state after it. */
type AttemptLog = {
  id: string
  delivery_id: string
  attempt: number
  url: string
  started_at: Date
  duration_ms: number
  status_code: number | null
  succeeded: boolean
  error: string | null
  response_body: string | null
  status: 'pending' | 'succeeded' | 'failed'
  next_attempt_at: Date | null
  finished_at: Date
}

/**
 * Logs attempts and moves their deliveries in one statement (atomic without a transaction): the
 * unique (delivery, attempt) row decides which worker's attempt counts, and a delivery moves only
 * with its own new attempt row and from the attempt count before it. Returns, per log, whether it
 * was recorded (false: another worker logged that attempt number first).
 */
async function logAttempts(db: Db, logs: AttemptLog[]): Promise<boolean[]> {
  const rows = sql`json_to_recordset(${JSON.stringify(logs)}::json) as v(
    id text, delivery_id text, attempt integer, url text, started_at timestamptz, duration_ms integer,
    status_code integer, succeeded boolean, error text, response_body text, status text,
    next_attempt_at timestamptz, finished_at timestamptz)`
  const logged = await sql<{ delivery_id: string; attempt: number }>`
    with attempt as (
      insert into webhook_attempts
        (id, delivery_id, attempt, url, started_at, duration_ms, status_code, succeeded, error, response_body)
      select id, delivery_id, attempt, url, started_at, duration_ms, status_code, succeeded, error, response_body
      from ${rows}
      on conflict (delivery_id, attempt) do nothing
      returning delivery_id, attempt
    ), delivery as (
      update webhook_deliveries d
      set attempts = v.attempt, status = v.status, next_attempt_at = v.next_attempt_at,
        last_status_code = v.status_code, last_error = v.error, updated_at = v.finished_at,
        completed_at = case when v.status = 'pending' then null else v.finished_at end
      from ${rows}
      where d.id = v.delivery_id and d.attempts = v.attempt - 1
        and (v.delivery_id, v.attempt) in (select delivery_id, attempt from attempt)
      returning d.id
    )
    select delivery_id, attempt from attempt`.execute(db)
  const done = new Set(logged.rows.map((row) => `${row.delivery_id}/${row.attempt}`))
  return logs.map((log) => done.has(`${log.delivery_id}/${log.attempt}`))
}

type Batches = {
  load: (id: string) => Promise<Awaited<ReturnType<typeof selectDeliveries>>[number] | undefined>
  log: (entry: AttemptLog) => Promise<boolean>
}
const batches = new WeakMap<WebhookDeps, Batches>()

/**
 * The batched reads and writes of one worker's deliveries (docs/webhooks.md "Throughput"): the
 * deliveries loaded, and the attempts logged, while one statement runs go together in the next.
 */
function batchesOf(deps: WebhookDeps): Batches {
  let found = batches.get(deps)
  if (!found) {
    found = {
      load: createBatcher(async (ids: string[]) => {
        const rows = await selectDeliveries(deps.db, ids)
        return ids.map((id) => rows.find((row) => row.id === id))
      }),
      log: createBatcher((logs: AttemptLog[]) => logAttempts(deps.db, logs)),
    }
    batches.set(deps, found)
  }
  return found
}

/**
 * Makes the next attempt of a pending delivery: signs the event's payload (`webhook-id` = event id,
 * the same on every attempt), POSTs it through the guarded client, and logs the attempt and the
 * delivery's new state in one transaction. Returns the attempt, or null when nothing was due (the
 * delivery ended, or an earlier run already made this attempt and scheduled the next).
 */
export async function attemptDelivery(
  deps: WebhookDeps,
  deliveryId: string,
): Promise<WebhookAttemptResult | { skipped: true; nextAttemptAt: Date | null }> {
  const row = await batchesOf(deps).load(deliveryId)
  const now = deps.clock.now()
  if (row?.status !== 'pending') {
    return { skipped: true, nextAttemptAt: null }
  }
  if (row.next_attempt_at && row.next_attempt_at.getTime() > now.getTime()) {
    return { skipped: true, nextAttemptAt: row.next_attempt_at }
  }
  const scope = { merchantId: row.merchant_id, environment: row.environment }
  let secrets: string[]
  let result: OutboundResult
  if (row.endpoint_id !== null && (row.deleted_at || row.disabled || !row.secret)) {
    const reason = row.deleted_at ? 'endpoint_deleted' : 'endpoint_disabled'
    result = { statusCode: null, body: null, durationMs: 0, error: { code: reason, message: 'not sent' } }
    return record(deps, row, now, result, { final: true })
  }
  if (row.endpoint_id !== null && row.secret) {
    const keyring = deps.settings.secretKeyring
    secrets = [openSecret(keyring, row.secret)]
    if (row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
      secrets.push(openSecret(keyring, row.previous_secret))
    }
  } else {
    const account = await getAccountSecret(deps.db, deps, scope)
    secrets = [account.secret]
    if (account.previousSecret && account.previousSecretExpiresAt && account.previousSecretExpiresAt > now) {
      secrets.push(account.previousSecret)
    }
  }
  const body = JSON.stringify(row.payload)
  const signed = signWebhook({ id: row.event_id, timestamp: now, body, secrets })
  result = await deps.http.post({
    url: row.url,
    headers: { 'content-type': 'application/json', 'user-agent': 'Tollgate-Webhooks/1.0', ...signed },
    body,
    allowLoopback: allowsLoopbackWebhooks(deps.settings, row.environment),
  })
  return record(deps, row, now, result, { final: false })
}

type DeliveryRow = {
  id: string
  url: string
  environment: 'test' | 'live'
  attempts: number
  max_attempts: number
}

async function record(
  deps: WebhookDeps,
  row: DeliveryRow,
  startedAt: Date,
  result: OutboundResult,
  options: { final: boolean },
): Promise<WebhookAttemptResult | { skipped: true; nextAttemptAt: Date | null }> {
  const outcome = toOutcome(result)
  const succeeded = outcome === 'success'
  const attempt = row.attempts + 1
  const error = describeFailure(result)
  const finished = deps.clock.now()
  const delays = deps.settings.webhookRetryDelaysMs[row.environment]
  const failed = !succeeded && (options.final || attempt >= row.max_attempts)
  const status = succeeded ? 'succeeded' : failed ? 'failed' : 'pending'
  const nextAttemptAt =
    status === 'pending'
      ? new Date(finished.getTime() + withJitter(delays[Math.min(attempt, delays.length) - 1] ?? 60_000))
      : null
  const logged = await batchesOf(deps).log({
    id: deps.ids.create('wha'),
    delivery_id: row.id,
    attempt,
    url: row.url,
    started_at: startedAt,
    duration_ms: result.durationMs,
    status_code: result.statusCode,
    succeeded,
    error,
    response_body: result.body,
    status,
    next_attempt_at: nextAttemptAt,
    finished_at: finished,
  })
  if (!logged) {
    // Another worker logged this attempt number first (our lease ran out mid-send): at least once.
    deps.logger.warn({ deliveryId: row.id, attempt }, 'webhook attempt already logged by another worker')
    return { skipped: true, nextAttemptAt: null }
  }
  deps.metrics?.attempts.inc({ outcome })
  deps.metrics?.attemptDuration.observe({ outcome }, result.durationMs / 1_000)
  if (status !== 'pending') {
    deps.metrics?.deliveries.inc({ status })
  }
  return {
    deliveryId: row.id,
    attempt,
    succeeded,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error,
    status,
    nextAttemptAt,
  }
}

/**
 * Handler of the `webhooks.deliver` job: one attempt, then the same job row is queued again at the
 * next attempt's time while the delivery is pending (docs/webhooks.md "Retries").
 */
export async function deliverWebhook(
  deps: WebhookDeps,
  payload: Record<string, unknown>,
): Promise<JobOutcome> {
  const result = await attemptDelivery(deps, String(payload.deliveryId))
  return result.nextAttemptAt ? { rerunAt: result.nextAttemptAt } : undefined
}
