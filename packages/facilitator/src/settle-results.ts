import { createSettleFailure, REASONS, type SettleResponse } from '@tollgate/core'
import type { SettlementRecord } from './settlement-store.js'

/** The answer while a key's transaction is out but not known final: re-settle later, never re-pay. */
export function pendingResult(record: Pick<SettlementRecord, 'network' | 'transaction'>): SettleResponse {
  return createSettleFailure(record.network, REASONS.settlementPending, {
    errorMessage: 'settlement is in progress; settle again with the same payment to get its outcome',
    transaction: record.transaction,
  })
}

/** A settle of a payment whose success another request was answered (one payment, one delivery). */
export function alreadySettledResult(network: string): SettleResponse {
  return createSettleFailure(network, REASONS.duplicateSettlement, {
    errorMessage: 'this payment was already settled for another request; pay again with a new payment',
  })
}

/** A settle of a known key with other requirements or payload (a payment replayed to another merchant). */
export function duplicateResult(network: string): SettleResponse {
  return createSettleFailure(network, REASONS.duplicateSettlement, {
    errorMessage: 'this payment was already submitted for settlement with different requirements',
  })
}
