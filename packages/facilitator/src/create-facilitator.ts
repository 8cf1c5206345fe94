import {
  AppError,
  createSettleFailure,
  type FacilitatorClient,
  type FacilitatorRequest,
  formatAtomicAmount,
  REASONS,
  type SchemeFacilitator,
  type SettledOutcomeWrite,
  type SettleOptions,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from '@tollgate/core'
import { createSettleGuard, NO_SETTLE_LIMITS, type SettleLimits } from './create-settle-guard.js'
import { createSettlementCoordinator } from './create-settlement-coordinator.js'
import {
  createFacilitatorMetrics,
  type FacilitatorMetrics,
  type SignerBalance,
} from './facilitator-metrics.js'
import { getSettlementFingerprint } from './get-settlement-fingerprint.js'
import { getSupported } from './get-supported.js'
import { type Logger, silentLogger } from './logger.js'
import { createMemorySettlementStore } from './memory-settlement-store.js'
import { type ReconcileSummary, reconcileSettlements } from './reconcile-settlements.js'
import { type RouteOptions, routeFacilitatorRequest } from './route-facilitator-request.js'
import type { SettlementStateCounts, SettlementStore } from './settlement-store.js'
import { toPublicMessage } from './to-public-message.js'

/** Dependencies of {@link createFacilitator}. */
export type FacilitatorDeps = {
  schemes: readonly SchemeFacilitator[]
  /** Durable exactly-once store (`createPostgresSettlementStore`); default: in memory. */
  store?: SettlementStore
  logger?: Logger
  metrics?: FacilitatorMetrics
  /** Clock in ms since epoch (leases, timestamps). */
  now?: () => number
  /** Relayer / fee-payer balances for `/health` and the balance gauge. */
  getBalances?: () => Promise<SignerBalance[]>
  /** Claim lease in ms (default 30 000); a dead process's claims are taken over after it. */
  leaseMs?: number
  /** How long a settle waits for another process settling the same payment (default 60 000 ms). */
  settleWaitTimeoutMs?: number
  /**
   * Dust and abuse limits (fee floor, settle windows per payer and per caller, revert cool-down),
   * kept in memory per process; default: none (`resolveSettleLimits` builds them from config).
   */
  limits?: SettleLimits
}

/** Options of {@link Facilitator.verify} and {@link Facilitator.settle}: routing, and who calls. */
export type CallOptions = RouteOptions & {
  /** The caller (an auth token, a client address, a merchant) for the per-caller limit. */
  caller?: string
}

/**
 * `GET /health` data: store counts and signer balances (decimal strings in whole units). `degraded`
 * when the balances could not be read (an RPC down); the store failing throws instead.
 */
export type FacilitatorHealth = {
  status: 'ok' | 'degraded'
  settlements: SettlementStateCounts
  balances: { network: string; address: string; symbol: string; balance: string }[]
  balanceError?: string
}

/** Tollgate's facilitator: an in-process {@link FacilitatorClient} with exactly-once settlement. */
export interface Facilitator extends FacilitatorClient {
  /** Verifies a payment; `options.parsed` says `request` is `parseFacilitatorRequest`'s answer. */
  verify(request: FacilitatorRequest, options?: CallOptions): Promise<VerifyResponse>
  /**
   * Settles a payment exactly once; `options.parsed` as for `verify`. `options.onSettled` runs only
   * in the call that settled the payment, alongside the outcome write (see `SettleOptions`).
   */
  settle(request: FacilitatorRequest, options?: CallOptions & SettleOptions): Promise<SettleResponse>
  readonly metrics: FacilitatorMetrics
  /**
   * Re-awaits settlements whose outcome is not known (`pending`, or held by a process that died);
   * a scheme broadcasts again only for a transaction the chain shows was dropped. Run it at start
   * and on an interval.
   */
  reconcilePending(options?: { limit?: number; concurrency?: number }): Promise<ReconcileSummary>
  getHealth(): Promise<FacilitatorHealth>
  /** Stops lease heartbeats; claims still held expire and another process takes them over. */
  close(): void
}

/**
 * Creates the facilitator: routes v1 and v2 requests to the scheme serving the network, and settles
 * each payment exactly once through the settlement store.
 *
 * @example
 * const facilitator = createFacilitator({
 *   schemes: [createEip3009Facilitator({ networks, assets })],
 *   store: await createPostgresSettlementStore({ db: await openSettlementDatabase({ dataDir }) }),
 * })
 * await facilitator.settle({ x402Version: 2, paymentPayload, paymentRequirements })
 */
export function createFacilitator(deps: FacilitatorDeps): Facilitator {
  const { schemes } = deps
  const store = deps.store ?? createMemorySettlementStore()
  const logger = deps.logger ?? silentLogger
  const now = deps.now ?? Date.now
  const metrics = deps.metrics ?? createFacilitatorMetrics()
  const guard = createSettleGuard(deps.limits ?? NO_SETTLE_LIMITS, now)
  const coordinator = createSettlementCoordinator({
    store,
    logger,
    now,
    leaseMs: deps.leaseMs ?? 30_000,
    waitTimeoutMs: deps.settleWaitTimeoutMs ?? 60_000,
    pollMs: { min: 20, max: 500 },
  })
  metrics.track({
    getSettlementCounts: () => store.countByState(),
    ...(deps.getBalances ? { getBalances: deps.getBalances } : {}),
  })

  async function verify(request: FacilitatorRequest, options?: CallOptions): Promise<VerifyResponse> {
    const started = performance.now()
    const labels = { network: 'unknown', scheme: 'unknown', outcome: 'error', reason: '' }
    try {
      const route = routeFacilitatorRequest(schemes, request, options)
      if (!route.ok) {
        labels.outcome = 'invalid'
        labels.reason = route.reason
        return { isValid: false, invalidReason: route.reason, invalidMessage: route.message }
      }
      labels.network = route.requirements.network
      labels.scheme = route.scheme.name
      const refused = guard.checkVerify({
        requirements: route.requirements,
        payer: route.scheme.getPayer?.(route.payment),
        caller: options?.caller,
      })
      const verified = refused ? undefined : await route.scheme.verify(route.payment, route.requirements)
      const cooling = verified?.isValid ? guard.checkPayer(verified.payer) : undefined
      const limited = refused ?? cooling
      const result: VerifyResponse = limited
        ? {
            isValid: false,
            invalidReason: limited.reason,
            invalidMessage: limited.message,
            ...(verified?.payer ? { payer: verified.payer } : {}),
          }
        : (verified as VerifyResponse)
      labels.outcome = result.isValid ? 'valid' : 'invalid'
      labels.reason = toReasonLabel(result.invalidReason)
      if (result.invalidMessage === undefined) {
        return result
      }
      // Upstream text (an RPC URL with its key) stays in the log; the answer carries its public part.
      const invalidMessage = toPublicMessage(result.invalidMessage)
      if (invalidMessage !== result.invalidMessage) {
        logger.warn({ invalidReason: result.invalidReason, detail: result.invalidMessage }, 'verify detail')
      }
      return { ...result, invalidMessage }
    } finally {
      metrics.observeVerify(labels, (performance.now() - started) / 1000)
    }
  }

  async function settle(
    request: FacilitatorRequest,
    options?: CallOptions & SettleOptions,
  ): Promise<SettleResponse> {
    const started = performance.now()
    const labels = { network: 'unknown', scheme: 'unknown', outcome: 'error', reason: '' }
    const hook = options?.onSettled
    // A failing hook makes settle throw its error once the outcome is stored: the payment is
    // settled, and the metric says so (a failed outcome write stays an `error`).
    let hookError: unknown
    const onSettled =
      hook &&
      ((result: SettleResponse, outcome?: SettledOutcomeWrite) =>
        Promise.resolve()
          .then(() => hook(result, outcome))
          .catch((error: unknown) => {
            hookError = error
            throw error
          }))
    try {
      const route = routeFacilitatorRequest(schemes, request, options)
      let result: SettleResponse
      if (!route.ok) {
        result = failure(route.reason, route.message, route.network)
      } else {
        labels.network = route.requirements.network
        labels.scheme = route.scheme.name
        const key = route.scheme.getSettlementKey(route.payment, route.requirements)
        const admission = key
          ? guard.admit({
              key,
              requirements: route.requirements,
              payer: route.scheme.getPayer?.(route.payment),
              caller: options?.caller,
            })
          : undefined
        if (!key) {
          result = failure(
            REASONS.invalidPayload,
            'the payload has no settlement key',
            route.requirements.network,
          )
        } else if (admission && 'reason' in admission) {
          result = failure(admission.reason, admission.message, route.requirements.network)
        } else {
          let settled: SettleResponse | undefined
          try {
            settled = await coordinator.settle({
              scheme: route.scheme,
              key,
              fingerprint: getSettlementFingerprint(route.payment, route.requirements),
              payment: route.payment,
              requirements: route.requirements,
              ...(onSettled ? { onSettled } : {}),
              ...(options?.database === undefined ? {} : { database: options.database }),
            })
          } finally {
            admission?.done(settled)
          }
          result = settled
        }
      }
      labels.outcome = result.success
        ? 'success'
        : result.errorReason === REASONS.settlementPending
          ? 'pending'
          : 'failure'
      labels.reason = toReasonLabel(result.errorReason)
      return result
    } catch (error) {
      if (hookError !== undefined && error === hookError) {
        labels.outcome = 'success'
      }
      throw error
    } finally {
      metrics.observeSettle(labels, (performance.now() - started) / 1000)
    }
  }

  return {
    metrics,
    verify,
    settle,
    getSupported: async (): Promise<SupportedResponse> => getSupported(schemes),
    reconcilePending: (options = {}) =>
      reconcileSettlements(
        { store, schemes, coordinator, logger, now },
        { limit: options.limit ?? 100, concurrency: options.concurrency ?? 8 },
      ),
    async getHealth(): Promise<FacilitatorHealth> {
      const [settlements, balances] = await Promise.all([
        store.countByState().catch((cause: unknown) => {
          throw new AppError('settlement_store_failed', {
            cause,
            message: 'the settlement store is unreachable',
          })
        }),
        (deps.getBalances?.() ?? Promise.resolve([])).then(
          (list) => ({ list, error: undefined }),
          (error: unknown) => ({ list: [], error: error instanceof Error ? error.message : String(error) }),
        ),
      ])
      return {
        status: balances.error === undefined ? 'ok' : 'degraded',
        settlements,
        balances: balances.list.map((b) => ({
          network: b.network,
          address: b.address,
          symbol: b.symbol,
          balance: formatAtomicAmount(b.balance, b.decimals),
        })),
        ...(balances.error === undefined ? {} : { balanceError: balances.error.split('\n')[0] ?? '' }),
      }
    },
    close: () => coordinator.close(),
  }
}

function failure(reason: string, message: string, network: string): SettleResponse {
  return createSettleFailure(network, reason, { errorMessage: message })
}

// Reasons may carry a `: detail` tail (docs/x402.md, 'Reason strings'); metrics keep the bounded prefix only.
function toReasonLabel(reason: string | undefined): string {
  return reason?.split(':')[0]?.slice(0, 100) ?? ''
}
