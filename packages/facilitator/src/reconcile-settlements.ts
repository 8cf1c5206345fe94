import { randomUUID } from 'node:crypto'
import { createSettleFailure, REASONS, type SchemeFacilitator } from '@tollgate/core'
import type { SettlementCoordinator } from './create-settlement-coordinator.js'
import type { Logger } from './logger.js'
import type { SettlementRecord, SettlementStore } from './settlement-store.js'

/** What one {@link reconcileSettlements} pass did, by outcome. */
export type ReconcileSummary = {
  checked: number
  settled: number
  failed: number
  pending: number
  /** Claims whose process died before broadcasting: released as retryable failures. */
  abandoned: number
  /** Rows whose scheme or network this facilitator no longer serves. */
  skipped: number
}

type ReconcileDeps = {
  store: SettlementStore
  schemes: readonly SchemeFacilitator[]
  coordinator: SettlementCoordinator
  logger: Logger
  now: () => number
}

/**
 * One reconciliation pass over rows nobody is working on: a `pending` or `broadcast` row is
 * settled again through the coordinator, which hands the scheme the stored transaction to
 * re-await (re-sent only if the chain shows it was dropped). A `claimed` row whose holder died
 * never broadcast; it becomes a retryable failure rather than being sent on the merchant's behalf
 * long after the request.
 */
export async function reconcileSettlements(
  deps: ReconcileDeps,
  options: { limit: number; concurrency: number },
): Promise<ReconcileSummary> {
  const summary: ReconcileSummary = {
    checked: 0,
    settled: 0,
    failed: 0,
    pending: 0,
    abandoned: 0,
    skipped: 0,
  }
  const rows = await deps.store.listReconcilable(deps.now(), options.limit)
  // Re-awaits wait up to a scheme's confirmation timeout each; a few run side by side.
  let next = 0
  const worker = async () => {
    for (let row = rows[next++]; row; row = rows[next++]) {
      summary.checked += 1
      summary[await reconcileRow(deps, row)] += 1
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, rows.length) }, worker))
  return summary
}

async function reconcileRow(
  deps: ReconcileDeps,
  row: SettlementRecord,
): Promise<Exclude<keyof ReconcileSummary, 'checked'>> {
  const scheme = deps.schemes.find(
    (s) => s.name === row.scheme && (s.networks as readonly string[]).includes(row.network),
  )
  if (!scheme) {
    deps.logger.warn({ key: row.key, scheme: row.scheme, network: row.network }, 'no scheme to reconcile')
    return 'skipped'
  }
  if (row.state === 'claimed' && !row.transaction) {
    return (await releaseAbandoned(deps, row)) ? 'abandoned' : 'skipped'
  }
  const result = await deps.coordinator.settle({
    scheme,
    key: row.key,
    fingerprint: row.fingerprint,
    payment: row.paymentPayload,
    requirements: row.paymentRequirements,
    // Nobody waits for this answer: a success stays deliverable to the payment's next settle.
    delivers: false,
  })
  deps.logger.info({ key: row.key, success: result.success, reason: result.errorReason }, 'reconciled')
  if (result.success) {
    return 'settled'
  }
  return result.errorReason === REASONS.settlementPending ? 'pending' : 'failed'
}

async function releaseAbandoned(deps: ReconcileDeps, row: SettlementRecord): Promise<boolean> {
  const owner = randomUUID()
  const { claimed } = await deps.store.claim({
    key: row.key,
    scheme: row.scheme,
    network: row.network,
    fingerprint: row.fingerprint,
    paymentPayload: row.paymentPayload,
    paymentRequirements: row.paymentRequirements,
    owner,
    now: deps.now(),
    leaseMs: 60_000,
  })
  if (!claimed) {
    return false
  }
  deps.logger.warn({ key: row.key }, 'settlement abandoned before broadcast; released for retry')
  return deps.store.complete({
    key: row.key,
    owner,
    state: 'failed',
    transaction: undefined,
    now: deps.now(),
    result: createSettleFailure(row.network, REASONS.unexpectedSettleError, {
      errorMessage: 'the facilitator stopped before broadcasting; settle again to retry',
    }),
  })
}
