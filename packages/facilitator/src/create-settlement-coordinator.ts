import { randomUUID } from 'node:crypto'
import {
  AppError,
  createSettleFailure,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SchemeFacilitator,
  type SettleContext,
  type SettledOutcomeWrite,
  type SettleResponse,
} from '@tollgate/core'
import type { Logger } from './logger.js'
import { alreadySettledResult, duplicateResult, pendingResult } from './settle-results.js'
import { createOutcomeOffer, runHook } from './settlement-outcome-offer.js'
import type { SettlementRecord, SettlementStore } from './settlement-store.js'
import { toPublicSettleResponse } from './to-public-message.js'

/** One payment to settle through a scheme under its settlement key. */
export type SettlementJob = {
  scheme: SchemeFacilitator
  key: string
  fingerprint: string
  payment: PaymentPayload
  requirements: PaymentRequirements
  /**
   * Runs when this job is the key's claim owner and its outcome is a success, concurrently with
   * the store's outcome write, or holding it (`database`); settle answers after both (see
   * `SettleOptions.onSettled`).
   */
  onSettled?: (result: SettleResponse, outcome?: SettledOutcomeWrite) => Promise<void>
  /** The database handle `onSettled` writes to (`SettleOptions.database`). */
  database?: unknown
  /**
   * Whether a caller waits for this settle's answer (default true). A payment's success is answered
   * once (`SettlementRecord.delivered`); the reconciler passes `false`, so a success it finds is
   * left for the payment's next settle instead of being spent on nobody.
   */
  delivers?: boolean
}

/** Options of {@link createSettlementCoordinator}. */
export type SettlementCoordinatorOptions = {
  store: SettlementStore
  logger: Logger
  now: () => number
  /** How long a claim holds without a heartbeat (ms); heartbeats renew it every third of that. */
  leaseMs: number
  /** How long a caller waits for another holder of the same key before answering `settlement_pending`. */
  waitTimeoutMs: number
  /** Poll interval bounds while waiting for another process (ms). */
  pollMs: { min: number; max: number }
}

/** Exactly-once settlement on top of a {@link SettlementStore}. */
export type SettlementCoordinator = {
  /**
   * Settles `job` once per key across every caller and process. A failure or `settlement_pending`
   * is answered to every caller of the key; a success only to one of them (the settle that
   * stored it, or the first to ask after the reconciler stored it): the others get
   * `duplicate_settlement`, so one payment never buys two deliveries.
   */
  settle(job: SettlementJob): Promise<SettleResponse>
  /** Stops lease heartbeats (a process shutting down; its claims expire and are taken over). */
  close(): void
}

/**
 * Creates the exactly-once settle path: claim the key in the store before anything is sent, run
 * the scheme with the stored transaction (to re-await; replaced only if dropped) and a durable
 * `recordBroadcast`, keep the claim alive with a heartbeat, and store the outcome. Callers of a
 * key already in flight in this process share its promise; callers in other processes poll the
 * store for its outcome.
 */
export function createSettlementCoordinator(options: SettlementCoordinatorOptions): SettlementCoordinator {
  const deps: CoordinatorDeps = { ...options, heartbeats: new Set() }
  const inflight = new Map<string, { fingerprint: string; promise: Promise<SettleResponse> }>()
  let closed = false

  return {
    settle(job) {
      if (closed) {
        return Promise.reject(
          new AppError('settlement_store_failed', { message: 'the facilitator is closed' }),
        )
      }
      const running = inflight.get(job.key)
      if (running) {
        return running.fingerprint === job.fingerprint
          ? running.promise.then((result) => takeDelivery(deps, job, result))
          : Promise.resolve(duplicateResult(job.requirements.network))
      }
      const promise = claimAndSettle(deps, job).finally(() => inflight.delete(job.key))
      inflight.set(job.key, { fingerprint: job.fingerprint, promise })
      return promise
    },
    close() {
      closed = true
      for (const timer of deps.heartbeats) {
        clearInterval(timer)
      }
      deps.heartbeats.clear()
    },
  }
}

// What the coordinator's parts share: the options, and the heartbeat timers to stop on close.
type CoordinatorDeps = SettlementCoordinatorOptions & { heartbeats: Set<ReturnType<typeof setInterval>> }

/** Claims the job's key in the store for `owner` (or reads who holds it). */
function claim(deps: CoordinatorDeps, job: SettlementJob, owner: string) {
  return deps.store.claim({
    key: job.key,
    scheme: job.scheme.name,
    network: job.requirements.network,
    fingerprint: job.fingerprint,
    paymentPayload: job.payment,
    paymentRequirements: job.requirements,
    owner,
    now: deps.now(),
    leaseMs: deps.leaseMs,
  })
}

/**
 * Claims the key, or waits for its holder (here or in another process) and takes its stored
 * outcome; claims a key whose holder's lease ran out.
 */
async function claimAndSettle(deps: CoordinatorDeps, job: SettlementJob): Promise<SettleResponse> {
  const owner = randomUUID()
  const deadline = deps.now() + deps.waitTimeoutMs
  let delay = deps.pollMs.min
  // The scheme's pre-broadcast checks run while the claim is written; a failure there only
  // means settle runs them itself.
  let prepared = job.scheme.prepareSettle?.(job.payment, job.requirements).catch(() => undefined)
  let attempt = await claim(deps, job, owner)
  for (;;) {
    if (attempt.claimed) {
      return runClaimed(deps, job, attempt.record, owner, prepared)
    }
    // Checks made before waiting on another holder are stale by the time this caller claims.
    prepared = undefined
    const record = attempt.record
    if (record.fingerprint !== job.fingerprint) {
      return duplicateResult(job.requirements.network)
    }
    if ((record.state === 'settled' || record.state === 'failed') && record.result) {
      return takeDelivery(deps, job, record.result)
    }
    if (deps.now() >= deadline) {
      return pendingResult(record)
    }
    await sleep(delay)
    delay = Math.min(delay * 2, deps.pollMs.max)
    const current = await deps.store.get(job.key)
    // A waiter takes the outcome the holder stored; it claims only a row that is gone, or whose
    // holder's lease ran out (a `pending` row is released at once, so a waiter re-awaits it).
    const finished = current?.result && (current.state === 'settled' || current.state === 'failed')
    attempt =
      current && (finished || current.leaseUntil > deps.now())
        ? { claimed: false, record: current }
        : await claim(deps, job, owner)
  }
}

/** Runs the scheme's settle under a held claim, with a heartbeat, and stores the outcome. */
async function runClaimed(
  deps: CoordinatorDeps,
  job: Pick<SettlementJob, 'scheme' | 'onSettled' | 'database' | 'delivers' | 'requirements' | 'key'>,
  record: SettlementRecord,
  owner: string,
  preparing: Promise<unknown> | undefined,
): Promise<SettleResponse> {
  const { key } = record
  const recorder = createBroadcastRecorder(deps, key, owner)
  const stopHeartbeat = startHeartbeat(deps, key, owner)
  const prepared = record.transaction ? undefined : await preparing
  const context: SettleContext = {
    ...(record.transaction ? { previousTransaction: record.transaction } : {}),
    ...(prepared === undefined ? {} : { prepared }),
    recordBroadcast: recorder.record,
  }
  let result: SettleResponse
  try {
    result = toPublicSettleResponse(
      deps.logger,
      key,
      await job.scheme.settle(record.paymentPayload, record.paymentRequirements, context),
    )
  } catch (error) {
    const broadcast = recorder.latest() ?? record.transaction
    // The error's text (an RPC URL with its key, a request body) stays in this log line.
    deps.logger.error({ err: error, key, transaction: broadcast }, 'scheme settle threw')
    result = broadcast
      ? pendingResult({ ...record, transaction: broadcast })
      : createSettleFailure(record.network, REASONS.unexpectedSettleError, {
          errorMessage: 'unexpected error while settling; the details are in the facilitator log',
        })
  } finally {
    stopHeartbeat()
  }
  return storeOutcome(deps, record, owner, result, recorder.latest(), job)
}

// A settle's `recordBroadcast`. The relayer calls it again for each fee-bumped replacement of a
// stuck transaction (same sender and nonce), also after the settle answered `settlement_pending`
// and released the row. So when the owner-fenced write is refused, a transaction this settle
// recorded itself is swapped for the new one by compare-and-set on the row. That keeps
// exactly-once: one settle's calls are replacements of one relayer nonce (or sends the node
// refused), so at most one of them is mined, and recovery finds whichever was through the
// payment nonce's logs. A settle that lost its claim before recording anything may not send at
// all: it throws, and the relayer does not broadcast.
function createBroadcastRecorder(deps: CoordinatorDeps, key: string, owner: string) {
  let latest: string | undefined
  return {
    latest: () => latest,
    async record(transaction: string): Promise<void> {
      const at = deps.now()
      const stored =
        (await deps.store.recordBroadcast(key, owner, transaction, at)) ||
        (latest !== undefined &&
          (await deps.store.replaceTransaction({ key, from: latest, to: transaction, now: at })))
      if (!stored) {
        throw new AppError('settlement_store_failed', {
          context: { key },
          message: 'the settlement claim was lost before broadcast',
        })
      }
      latest = transaction
    },
  }
}

/**
 * Stores a settle's outcome under the claim; when the claim was lost, the stored record wins. A
 * success runs the caller's `onSettled` at the same time as the write (its own commit overlaps
 * the store's instead of following it), or, when the hook writes to the store's database, hands
 * the write to the hook to commit with its own (see `SettleOptions.database`); the answer waits for
 * both. A failing hook changes nothing in the store: the outcome is written all the same, then the
 * hook's error is thrown.
 */
async function storeOutcome(
  deps: CoordinatorDeps,
  record: SettlementRecord,
  owner: string,
  result: SettleResponse,
  recorded: string | undefined,
  job: Pick<SettlementJob, 'onSettled' | 'database' | 'delivers' | 'requirements' | 'key'>,
): Promise<SettleResponse> {
  const pending = !result.success && result.errorReason === REASONS.settlementPending
  const known = recorded ?? record.transaction
  // A pending outcome keeps the newest transaction recorded: a replacement sent during the wait
  // supersedes the hash the scheme awaited. A failure the scheme reports with no transaction has
  // nothing in flight: it stays retryable.
  const transaction = pending
    ? (recorded ?? (result.transaction || known))
    : result.transaction || (result.success ? known : undefined)
  const answer = pending && transaction ? { ...result, transaction } : result
  const state = result.success ? 'settled' : pending ? 'pending' : 'failed'
  const delivered = job.delivers !== false
  const parameters = {
    key: record.key,
    owner,
    state,
    result: answer,
    transaction,
    delivered,
    now: deps.now(),
  } as const
  const onSettled = result.success ? job.onSettled : undefined
  const joinable = deps.store.joinable
  const offer =
    onSettled && joinable && job.database !== undefined && joinable.database === job.database
      ? createOutcomeOffer(joinable, parameters)
      : undefined
  let completing: Promise<boolean>
  let hook: Promise<{ error: unknown } | undefined> | undefined
  if (onSettled && offer) {
    // The hook runs the write; the store writes it only if the hook releases it or ends without.
    hook = runHook(onSettled, answer, offer.write)
    completing = offer.outcome(hook).then((reported) => reported ?? deps.store.complete(parameters))
  } else {
    // Sent before the hook starts, so the store's commit is never queued behind the hook's work.
    completing = deps.store.complete(parameters)
    hook = onSettled ? runHook(onSettled, answer, undefined) : undefined
  }
  let stored: boolean
  try {
    stored = await completing
  } catch (error) {
    if (hook) {
      const failed = await hook
      if (failed) {
        deps.logger.error({ err: failed.error, key: record.key }, 'settlement hook failed')
      }
    }
    throw error
  }
  const failed = hook && (await hook)
  if (failed) {
    deps.logger.error({ err: failed.error, key: record.key, stored }, 'settlement hook failed')
    // The caller gets the hook's error, not the success: its retry may still take the delivery.
    if (stored && delivered) {
      await deps.store.returnDelivery(record.key, deps.now())
    }
    throw failed.error
  }
  if (!stored) {
    // Another process took the key over (our lease ran out mid-settle, or a replacement of the
    // transaction we started from released us); its record wins. A success stands anyway: the
    // chain shows the transfer, and the payment can have no other. It is answered once the new
    // holder stored it, and only if that holder answered nobody (the reconciler).
    deps.logger.warn({ key: record.key, state }, 'settlement claim lost before storing the outcome')
    if (result.success) {
      return awaitDelivery(deps, job, result)
    }
    const current = await deps.store.get(record.key)
    if (current?.result && (current.state === 'settled' || current.state === 'failed')) {
      return current.result
    }
    return pendingResult(current ?? record)
  }
  deps.logger.info({ key: record.key, network: record.network, state, transaction }, 'settlement stored')
  return answer
}

/** Renews the claim's lease every third of it until the returned stop is called. */
function startHeartbeat(deps: CoordinatorDeps, key: string, owner: string): () => void {
  const timer = setInterval(
    () => {
      deps.store.renew(key, owner, deps.now() + deps.leaseMs).then(
        (held) => held || deps.logger.warn({ key }, 'settlement lease lost'),
        (error: unknown) => deps.logger.warn({ err: error, key }, 'settlement lease renewal failed'),
      )
    },
    Math.max(1, Math.floor(deps.leaseMs / 3)),
  )
  timer.unref()
  deps.heartbeats.add(timer)
  return () => {
    clearInterval(timer)
    deps.heartbeats.delete(timer)
  }
}

/**
 * A success found rather than produced by this caller's settle (another caller's in flight here,
 * another process's stored outcome, a lost claim): answered only to the first caller to take its
 * delivery, `duplicate_settlement` to every other. Failures and `settlement_pending` are shared.
 */
async function takeDelivery(
  deps: CoordinatorDeps,
  job: Pick<SettlementJob, 'delivers' | 'requirements' | 'key'>,
  result: SettleResponse,
): Promise<SettleResponse> {
  if (!result.success || job.delivers === false) {
    return result
  }
  if (await deps.store.deliver(job.key, deps.now())) {
    return result
  }
  return alreadySettledResult(job.requirements.network)
}

/**
 * A success whose claim was lost: waits for the holder that took the key over to store its
 * outcome, then takes the delivery. A row nobody holds (released by a replacement) answers
 * `settlement_pending`: the retry claims it, re-awaits and is answered.
 */
async function awaitDelivery(
  deps: CoordinatorDeps,
  job: Pick<SettlementJob, 'delivers' | 'requirements' | 'key'>,
  result: SettleResponse,
): Promise<SettleResponse> {
  if (job.delivers === false) {
    return result
  }
  const deadline = deps.now() + deps.waitTimeoutMs
  let delay = deps.pollMs.min
  for (;;) {
    const current = await deps.store.get(job.key)
    if (!current || current.state === 'settled') {
      return takeDelivery(deps, job, result)
    }
    const held = current.owner !== undefined && current.leaseUntil > deps.now()
    if (!held || deps.now() >= deadline) {
      return pendingResult({ ...current, transaction: result.transaction })
    }
    await sleep(delay)
    delay = Math.min(delay * 2, deps.pollMs.max)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
