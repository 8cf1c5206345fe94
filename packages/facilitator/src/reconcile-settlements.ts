import { randomUUID } from 'node:crypto'
import { REASONS, type SchemeFacilitator } from '@tollgate/core'
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
 * re-await (never re-send). A `claimed` row whose holder died never broadcast; it becomes a
 * retryable failure rather than being sent on the merchant's behalf long after the request.
 */
export async function reconcileSettlements(
  deps: ReconcileDeps,
  options: { limit: number },
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
  for (const row of rows) {
    summary.checked += 1
    const scheme = deps.schemes.find(
      (s) => s.name === row.scheme && (s.networks as readonly string[]).includes(row.network),
    )
    if (!scheme) {
      deps.logger.warn({ key: row.key, scheme: row.scheme, network: row.network }, 'no scheme to reconcile')
      summary.skipped += 1
      continue
    }
    if (row.state === 'claimed' && !row.transaction) {
      summary.abandoned += (await releaseAbandoned(deps, row)) ? 1 : 0
      continue
    }
    const result = await deps.coordinator.settle({
      scheme,
      key: row.key,
      fingerprint: row.fingerprint,
      payment: row.paymentPayload,
      requirements: row.paymentRequirements,
    })
    if (result.success) {
      summary.settled += 1
    } else if (result.errorReason === REASONS.settlementPending) {
      summary.pending += 1
    } else {
      summary.failed += 1
    }
    deps.logger.info({ key: row.key, success: result.success, reason: result.errorReason }, 'reconciled')
  }
  return summary
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
    result: {
      success: false,
      errorReason: REASONS.unexpectedSettleError,
      errorMessage: 'the facilitator stopped before broadcasting; settle again to retry',
      transaction: '',
      network: row.network,
    },
  })
}
