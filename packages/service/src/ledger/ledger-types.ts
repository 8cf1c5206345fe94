import type { TransferPhase } from '../db/schema/ledger.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { AccountCode } from './chart-of-accounts.js'
import type { LedgerCurrency } from './ledger-currencies.js'

/** What moved the money; shown to merchants as a balance transaction's `source`. */
export const ledgerSources = [
  'deposit',
  'payment',
  'x402',
  'payout',
  'swap',
  'fee',
  'sandbox_funding',
  'adjustment',
  'sweep',
] as const

/** What moved the money (see {@link ledgerSources}). */
export type LedgerSource = (typeof ledgerSources)[number]

/** One leg of a ledger transaction: `amount` minor units of `currency` from `debit` to `credit`. */
export type LedgerLeg = { debit: AccountCode; credit: AccountCode; amount: bigint; currency: LedgerCurrency }

/** Descriptive fields of a ledger transaction, copied to the merchant's balance transactions. */
export type LedgerTransactionInfo = {
  source: LedgerSource
  sourceId?: string | null | undefined
  sourceReference?: string | null | undefined
  reference?: string | null | undefined
  description?: string | null | undefined
  /** Hash of the crypto transaction that moved the money (deposits); filterable. */
  txHash?: string | null | undefined
}

/** An immutable ledger transfer. `pendingId` is set on post/void/expire, the pending transfer they resolve. */
export type LedgerTransfer = {
  id: string
  transactionId: string
  leg: number
  environment: KeyEnvironment
  currency: LedgerCurrency
  debitAccountId: string
  creditAccountId: string
  amount: bigint
  phase: TransferPhase
  pendingId: string | null
  expiresAt: Date | null
  createdAt: Date
}

/** An atomic group of transfers; `replayed` is true when the idempotency key had already been posted. */
export type LedgerTransaction = {
  id: string
  environment: KeyEnvironment
  idempotencyKey: string
  source: LedgerSource
  sourceId: string | null
  sourceReference: string | null
  reference: string | null
  description: string | null
  txHash: string | null
  transfers: LedgerTransfer[]
  replayed: boolean
  createdAt: Date
}

export type { TransferPhase }
