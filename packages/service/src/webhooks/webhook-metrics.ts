import { Counter, Histogram, type Registry } from 'prom-client'

/** Prometheus metrics of webhook deliveries (docs/webhooks.md "Metrics"). */
export type WebhookMetrics = {
  attempts: Counter<'outcome'>
  deliveries: Counter<'status'>
  attemptDuration: Histogram<'outcome'>
}

/**
 * Registers `webhook_attempts_total{outcome}` (`success`, `http_error`, `timeout`,
 * `address_refused`, …), `webhook_deliveries_total{status}` (deliveries that ended: `succeeded`,
 * `failed`) and `webhook_attempt_duration_seconds{outcome}` in `registry`.
 */
export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  return {
    attempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook deliveries that ended, by final status',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    attemptDuration: new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Latency of webhook delivery attempts in seconds, by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    }),
  }
}
