import { dispatchEventJob } from '../events/emit-event.js'
import type { JobRunner } from '../jobs/create-job-runner.js'
import { deliverWebhook, type WebhookDeps } from './deliver-webhook.js'
import { deliverWebhookJob, dispatchEvent } from './dispatch-event.js'

/** Registers the webhook jobs on `runner`: `events.dispatch` (fan-out) and `webhooks.deliver` (attempts). */
export function registerWebhookJobs(runner: JobRunner, deps: WebhookDeps): void {
  runner.register(dispatchEventJob, (payload) => dispatchEvent(deps, payload))
  runner.register(deliverWebhookJob, (payload) => deliverWebhook(deps, payload))
}
