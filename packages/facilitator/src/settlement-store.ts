import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@tollgate/core'

/**
 * Where one payment's settlement stands. `claimed` → (`broadcast`) → `settled` | `failed` |
 * `pending`. `pending` means a transaction went out but its outcome is not known yet
 * (`settlement_pending`); it is re-awaited (a scheme sends anew only for a transaction the chain
 * shows was dropped, recording the new one over the old).
 */
export type SettlementState = 'claimed' | 'broadcast' | 'pending' | 'settled' | 'failed'

/** One row of the settlement store: the claim on a payment's settlement key and its outcome. */
export type SettlementRecord = {
  /** The scheme's settlement key (`SchemeFacilitator.getSettlementKey`), unique. */
  key: string
  state: SettlementState
  /** Tollgate scheme name (`eip3009`, `permit2`, `solana`). */
  scheme: string
  network: string
  /** Hash of the requirements and signed payload; a retry must match it. */
  fingerprint: string
  /** The payment in v2 form, kept so a pending settlement can be reconciled by any process. */
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
  /** The broadcast transaction (EVM hash, Solana signature) once known. */
  transaction?: string
  /** The last settle result (`settled`, `failed`, `pending`). */
  result?: SettleResponse
  /** The holder of the claim, while it holds the lease. */
  owner?: string
  /** The claim is held until this time (ms since epoch); after it, another process may take over. */
  leaseUntil: number
  /** How many times the key was claimed (first claim = 1). */
  attempts: number
  /**
   * Whether a caller has been answered this settlement's success. One payment buys one delivery:
   * the settle that stored the success is answered it; a success stored by the reconciler (or by a
   * settle whose claim was lost) waits for the next settle of the payment, which takes it with
   * {@link SettlementStore.deliver}. Every other settle of the payment is refused.
   */
  delivered: boolean
  createdAt: number
  updatedAt: number
}

/** Input of {@link SettlementStore.claim}. */
export type ClaimSettlementParameters = {
  key: string
  scheme: string
  network: string
  fingerprint: string
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
  /** A unique id of the claimant (one per settle attempt). */
  owner: string
  /** Current time, ms since epoch. */
  now: number
  /** Lease length in ms. */
  leaseMs: number
}

/**
 * The result of a claim: `claimed: true` when the caller now holds the key (a new row, or a take-over
 * of an expired lease, a `pending` row nobody is re-awaiting, or a `failed` row that never broadcast),
 * else the current row, which someone else holds or which already has its final result.
 */
export type ClaimSettlementResult = { claimed: boolean; record: SettlementRecord }

/** The final or pending outcome written by {@link SettlementStore.complete}. */
export type CompleteSettlementParameters = {
  key: string
  owner: string
  state: 'settled' | 'failed' | 'pending'
  result: SettleResponse
  /** The transaction to keep; `undefined` clears it (a failure with nothing in flight stays retryable). */
  transaction: string | undefined
  /**
   * Whether the success is answered to the caller that stored it (default true); `false` leaves
   * it for the payment's next settle (see {@link SettlementRecord.delivered}).
   */
  delivered?: boolean
  now: number
}

/** Input of {@link SettlementStore.replaceTransaction}. */
export type ReplaceTransactionParameters = {
  key: string
  /** The transaction the caller recorded earlier; nothing changes unless the row still holds it. */
  from: string
  /** Its replacement: the same sender and nonce with higher fees, so at most one of them is mined. */
  to: string
  now: number
}

/** Counts of rows per state. */
export type SettlementStateCounts = Record<SettlementState, number>

/**
 * Durable exactly-once bookkeeping for settlements. Every write after the claim is fenced by
 * `owner`: it only lands while that owner still holds the row, so a process that lost its lease
 * (paused, or presumed dead and taken over) cannot overwrite the new holder's progress. The one
 * exception, {@link SettlementStore.replaceTransaction}, is a compare-and-set on the transaction.
 */
export interface SettlementStore {
  /** Atomically inserts the key, or takes it over when allowed (see {@link ClaimSettlementResult}). */
  claim(parameters: ClaimSettlementParameters): Promise<ClaimSettlementResult>
  /** Extends the owner's lease to `leaseUntil` (ms); `false` when the owner no longer holds the row. */
  renew(key: string, owner: string, leaseUntil: number): Promise<boolean>
  /** Records the broadcast transaction (state `broadcast`); `false` when the owner lost the row. */
  recordBroadcast(key: string, owner: string, transaction: string, now: number): Promise<boolean>
  /**
   * Swaps the row's transaction from `from` to `to` while the row is not final
   * (`claimed`/`broadcast`/`pending`) and still holds `from`; `false` otherwise. Not fenced by
   * owner: the relayer replaces a stuck transaction after the settle that sent it answered
   * `settlement_pending` and released the row. It releases any current holder too (owner cleared,
   * lease ended): that holder started from the old hash, and its stale decisions must not land.
   */
  replaceTransaction(parameters: ReplaceTransactionParameters): Promise<boolean>
  /** Stores the outcome and releases the lease; `false` when the owner lost the row. */
  complete(parameters: CompleteSettlementParameters): Promise<boolean>
  /**
   * Takes the delivery of a `settled` row nobody was answered yet (marks it delivered); `false`
   * when the row is not settled or its success was already delivered.
   */
  deliver(key: string, now: number): Promise<boolean>
  /**
   * Undoes a delivery whose caller could not use the success (its settle hook failed, so it was
   * answered an error): the payment's next settle may take it.
   */
  returnDelivery(key: string, now: number): Promise<void>
  get(key: string): Promise<SettlementRecord | undefined>
  /**
   * Rows that need a reconciler at `now`: `pending`, or `claimed`/`broadcast` whose holder's lease
   * ran out (the process died), oldest first.
   */
  listReconcilable(now: number, limit: number): Promise<SettlementRecord[]>
  countByState(): Promise<SettlementStateCounts>
  /**
   * Present on a store in a SQL database: {@link complete}'s write as a query for a caller to run
   * inside its own statement on the same `database` handle (see `SettleOptions.database`). The
   * query yields one row when the owner still held the key.
   */
  readonly joinable?: {
    database: unknown
    completeQuery(parameters: CompleteSettlementParameters): unknown
    /**
     * Several {@link complete} writes as one query whose text does not depend on how many: it
     * yields one row `{ key }` per key whose owner still held it.
     */
    completeManyQuery(parameters: readonly CompleteSettlementParameters[]): unknown
  }
}

/** Zero counts for every state. */
export function emptyStateCounts(): SettlementStateCounts {
  return { claimed: 0, broadcast: 0, pending: 0, settled: 0, failed: 0 }
}
