import type { Deps } from '../deps.js'
import { expirePendingTransfers } from '../ledger/resolve-pending.js'
import { expirePaymentSession, expireSessionJob } from '../payments/expire-payment-session.js'
import { type ReconcilePayoutPayload, reconcilePayoutJob } from '../payouts/payout-jobs.js'
import { reconcilePayout } from '../payouts/submit-payout.js'
import {
  type OpenTokenAccountPayload,
  openTokenAccountJobKind,
  runOpenTokenAccountJob,
} from '../rails/chains/run-open-token-account-job.js'
import { runSweepJob, sweepJobKind } from '../rails/chains/run-sweep-job.js'
import { runFiatCallbackJob } from '../rails/fiat/run-fiat-callback-job.js'
import { fiatCallbackJobKind } from '../rails/fiat/sandbox-fiat-transfers.js'
import type { WebhookDeps } from '../webhooks/deliver-webhook.js'
import { registerWebhookJobs } from '../webhooks/register-webhook-jobs.js'
import type { JobRunner } from './create-job-runner.js'

/** Options of {@link registerServiceJobs}. */
export type ServiceJobsOptions = {
  /** How often expired pending ledger transfers are voided (ms, default 5000). */
  expiryIntervalMs?: number
}

/**
 * Registers every background job of the service on `runner`: the sandbox, the `worker` command and
 * the test harness all call this, so a domain adds its handlers here, once (docs/jobs.md
 * "Adding a job").
 */
export function registerServiceJobs(
  runner: JobRunner,
  deps: Deps & WebhookDeps,
  options: ServiceJobsOptions = {},
): void {
  registerWebhookJobs(runner, deps)
  runner.register(fiatCallbackJobKind, (payload) => runFiatCallbackJob(deps, payload))
  runner.register(expireSessionJob, (payload) => expirePaymentSession(deps, payload))
  runner.register(sweepJobKind, (payload) => runSweepJob(deps, payload as { transferId: string }))
  runner.register(openTokenAccountJobKind, (payload) =>
    runOpenTokenAccountJob(deps, payload as OpenTokenAccountPayload),
  )
  runner.register(reconcilePayoutJob, (payload) => reconcilePayout(deps, payload as ReconcilePayoutPayload))
  runner.every('ledger.expire-pending', options.expiryIntervalMs ?? 5_000, async () => {
    await expirePendingTransfers(deps)
  })
}
