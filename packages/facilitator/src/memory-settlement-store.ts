import {
  type ClaimSettlementParameters,
  type ClaimSettlementResult,
  type CompleteSettlementParameters,
  emptyStateCounts,
  type ReplaceTransactionParameters,
  type SettlementRecord,
  type SettlementStateCounts,
  type SettlementStore,
} from './settlement-store.js'

/**
 * A {@link SettlementStore} in process memory, for library users who run one facilitator process
 * and accept losing pending settlements on restart. Production uses
 * `createPostgresSettlementStore`.
 */
export function createMemorySettlementStore(): SettlementStore {
  const rows = new Map<string, SettlementRecord>()
  const held = (key: string, owner: string) => {
    const row = rows.get(key)
    return row?.owner === owner ? row : undefined
  }
  return {
    async claim(parameters: ClaimSettlementParameters): Promise<ClaimSettlementResult> {
      const { key, owner, now, leaseMs } = parameters
      const existing = rows.get(key)
      if (!existing) {
        const record: SettlementRecord = {
          key,
          state: 'claimed',
          scheme: parameters.scheme,
          network: parameters.network,
          fingerprint: parameters.fingerprint,
          paymentPayload: parameters.paymentPayload,
          paymentRequirements: parameters.paymentRequirements,
          owner,
          leaseUntil: now + leaseMs,
          attempts: 1,
          delivered: false,
          createdAt: now,
          updatedAt: now,
        }
        rows.set(key, record)
        return { claimed: true, record: { ...record } }
      }
      if (!canTakeOver(existing, parameters.fingerprint, now)) {
        return { claimed: false, record: { ...existing } }
      }
      const record: SettlementRecord = {
        ...existing,
        owner,
        leaseUntil: now + leaseMs,
        attempts: existing.attempts + 1,
        updatedAt: now,
      }
      if (existing.state === 'failed') {
        record.state = 'claimed'
        delete record.result
      }
      rows.set(key, record)
      return { claimed: true, record: { ...record } }
    },

    async renew(key, owner, leaseUntil) {
      const row = held(key, owner)
      if (row) {
        row.leaseUntil = leaseUntil
      }
      return row !== undefined
    },

    async recordBroadcast(key, owner, transaction, now) {
      const row = held(key, owner)
      if (row) {
        row.transaction = transaction
        row.updatedAt = now
        if (row.state === 'claimed') {
          row.state = 'broadcast'
        }
      }
      return row !== undefined
    },

    async replaceTransaction({ key, from, to, now }: ReplaceTransactionParameters) {
      const row = rows.get(key)
      if (!row || row.transaction !== from || !isUnfinished(row)) {
        return false
      }
      row.transaction = to
      delete row.owner
      row.leaseUntil = Math.min(row.leaseUntil, now)
      row.updatedAt = now
      return true
    },

    async complete(parameters: CompleteSettlementParameters) {
      const row = held(parameters.key, parameters.owner)
      if (!row) {
        return false
      }
      row.state = parameters.state
      row.result = parameters.result
      row.delivered = parameters.state === 'settled' && parameters.delivered !== false
      if (parameters.transaction === undefined) {
        delete row.transaction
      } else {
        row.transaction = parameters.transaction
      }
      delete row.owner
      row.leaseUntil = parameters.now
      row.updatedAt = parameters.now
      return true
    },

    async deliver(key, now) {
      const row = rows.get(key)
      if (row?.state !== 'settled' || row.delivered) {
        return false
      }
      row.delivered = true
      row.updatedAt = now
      return true
    },

    async returnDelivery(key, now) {
      const row = rows.get(key)
      if (row?.state === 'settled' && row.delivered) {
        row.delivered = false
        row.updatedAt = now
      }
    },

    async get(key) {
      const row = rows.get(key)
      return row ? { ...row } : undefined
    },

    async listReconcilable(now, limit) {
      return [...rows.values()]
        .filter((row) => isReconcilable(row, now))
        .sort((a, b) => a.updatedAt - b.updatedAt)
        .slice(0, limit)
        .map((row) => ({ ...row }))
    },

    async countByState(): Promise<SettlementStateCounts> {
      const counts = emptyStateCounts()
      for (const row of rows.values()) {
        counts[row.state] += 1
      }
      return counts
    },
  }
}

// The same take-over rule as the SQL store: an unexpired lease is never taken, a row for a
// different payment (fingerprint) is never taken, and a failure is only retried when nothing of
// it can be in flight (no transaction).
function canTakeOver(row: SettlementRecord, fingerprint: string, now: number): boolean {
  if (row.fingerprint !== fingerprint) {
    return false
  }
  if (row.state === 'failed') {
    return row.transaction === undefined
  }
  return row.state !== 'settled' && row.leaseUntil <= now
}

function isUnfinished(row: SettlementRecord): boolean {
  return row.state === 'pending' || row.state === 'claimed' || row.state === 'broadcast'
}

function isReconcilable(row: SettlementRecord, now: number): boolean {
  return isUnfinished(row) && row.leaseUntil <= now
}
