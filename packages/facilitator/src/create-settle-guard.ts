import { type PaymentRequirements, REASONS, type SettleResponse } from '@tollgate/core'
import { LRUCache } from 'lru-cache'

/** At most `settles` settlements per `windowMs` (a fixed window per payer or caller); 0 = no limit. */
export type WindowLimit = { settles: number; windowMs: number }

/**
 * The facilitator's dust and abuse limits: a minimum amount per network and asset (the fee floor),
 * settle windows per payer and per caller, and how long a payer whose settle reverted is refused.
 */
export type SettleLimits = {
  /** Smallest accepted amount in atomic units, keyed by {@link toMinAmountKey}. */
  minAmounts: ReadonlyMap<string, bigint>
  perPayer: WindowLimit
  perCaller: WindowLimit
  /** How long a payer is refused after one of its settles reverted on chain (0 = never). */
  revertCooldownMs: number
}

/** A refusal as x402 data: the reason string and a message for people. */
export type GuardRefusal = { reason: string; message: string }

/** An admitted settle: call `done` with its outcome (or nothing when it threw). */
export type GuardAdmission = { done(result?: SettleResponse): void }

/** The in-memory limits of one facilitator process (see {@link createSettleGuard}). */
export type SettleGuard = {
  /** At verify: the floor, the payer's cool-down, and whether a settle now would hit a window. */
  checkVerify(input: GuardInput): GuardRefusal | undefined
  /** At verify, once the scheme named the verified payer: its cool-down. */
  checkPayer(payer: string | undefined): GuardRefusal | undefined
  /** At settle: refuses, or counts the settle in its windows until `done` says no gas was spent. */
  admit(input: GuardInput & { key: string }): GuardRefusal | GuardAdmission
}

/** What the guard looks at: the requirements, the payer the payload names, and the caller. */
export type GuardInput = {
  requirements: PaymentRequirements
  payer: string | undefined
  caller: string | undefined
}

type Window = { start: number; count: number }

const MAX_TRACKED = 100_000

/** The key of a minimum amount: CAIP-2 network and lower-cased asset address. */
export function toMinAmountKey(network: string, asset: string): string {
  return `${network}|${asset.toLowerCase()}`
}

/**
 * Creates the settle guard. State is in memory, per process (bounded LRU maps): behind several
 * facilitator processes each enforces the windows alone, so the effective limit is per process.
 * A settle counts once it is admitted and is given back when it sent nothing (no gas spent); a
 * settle of a payment this process already counted (the retry after `settlement_pending`) is not
 * counted or refused again.
 */
export function createSettleGuard(limits: SettleLimits, now: () => number = Date.now): SettleGuard {
  const windows = new LRUCache<string, Window>({ max: MAX_TRACKED })
  const cooling = new LRUCache<string, number>({ max: MAX_TRACKED })
  const counted = new LRUCache<string, true>({ max: MAX_TRACKED })

  const checkAmount = (requirements: PaymentRequirements): GuardRefusal | undefined => {
    const floor = limits.minAmounts.get(toMinAmountKey(requirements.network, requirements.asset))
    if (floor === undefined || !/^\d+$/.test(requirements.amount) || BigInt(requirements.amount) >= floor) {
      return undefined
    }
    return {
      reason: REASONS.amountBelowMinimum,
      message: `this facilitator settles at least ${floor} atomic units of ${requirements.asset} on ${requirements.network}`,
    }
  }
  const checkPayer = (payer: string | undefined): GuardRefusal | undefined => {
    const until = payer === undefined ? undefined : cooling.get(payer.toLowerCase())
    if (until === undefined || until <= now()) {
      return undefined
    }
    return {
      reason: REASONS.payerCoolingDown,
      message: `a settle by this payer reverted; it is refused for ${Math.ceil((until - now()) / 1000)} s`,
    }
  }
  const current = (id: string, limit: WindowLimit): Window => {
    const at = now()
    const window = windows.get(id)
    if (window && at - window.start < limit.windowMs) {
      return window
    }
    const fresh = { start: at, count: 0 }
    windows.set(id, fresh)
    return fresh
  }
  const scopes = (input: GuardInput) =>
    [
      { id: input.payer && `payer:${input.payer.toLowerCase()}`, limit: limits.perPayer, who: 'payer' },
      { id: input.caller && `caller:${input.caller}`, limit: limits.perCaller, who: 'caller' },
    ].filter(
      (scope): scope is { id: string; limit: WindowLimit; who: string } =>
        Boolean(scope.id) && scope.limit.settles > 0,
    )
  const checkWindows = (input: GuardInput): GuardRefusal | undefined => {
    for (const scope of scopes(input)) {
      if (current(scope.id, scope.limit).count >= scope.limit.settles) {
        return {
          reason: REASONS.rateLimited,
          message: `this ${scope.who} reached ${scope.limit.settles} settles per ${scope.limit.windowMs / 1000} s; try again later`,
        }
      }
    }
    return undefined
  }

  return {
    checkPayer,
    checkVerify: (input) => checkAmount(input.requirements) ?? checkPayer(input.payer) ?? checkWindows(input),
    admit(input) {
      const refused = checkAmount(input.requirements) ?? checkPayer(input.payer)
      if (refused) {
        return refused
      }
      const coolDown = (result?: SettleResponse) => {
        const payer = result?.payer ?? input.payer
        if (result && payer && limits.revertCooldownMs > 0 && isReverted(result)) {
          cooling.set(payer.toLowerCase(), now() + limits.revertCooldownMs)
        }
      }
      if (counted.has(input.key)) {
        return { done: coolDown }
      }
      const overLimit = checkWindows(input)
      if (overLimit) {
        return overLimit
      }
      const taken = scopes(input).map((scope) => {
        const window = current(scope.id, scope.limit)
        window.count += 1
        return window
      })
      counted.set(input.key, true)
      return {
        done(result) {
          coolDown(result)
          if (!result || result.transaction === '') {
            // Nothing was sent: no gas spent, so the settle does not count.
            for (const window of taken) {
              window.count = Math.max(0, window.count - 1)
            }
            counted.delete(input.key)
          }
        },
      }
    },
  }
}

// A failure that carries a transaction the chain ran: the relayer paid for a revert.
function isReverted(result: SettleResponse): boolean {
  return (
    !result.success &&
    result.transaction !== '' &&
    result.errorReason !== REASONS.settlementPending &&
    result.errorReason !== REASONS.duplicateSettlement
  )
}

/** Limits that refuse nothing (the library default when `createFacilitator` gets none). */
export const NO_SETTLE_LIMITS: SettleLimits = {
  minAmounts: new Map(),
  perPayer: { settles: 0, windowMs: 60_000 },
  perCaller: { settles: 0, windowMs: 60_000 },
  revertCooldownMs: 0,
}
