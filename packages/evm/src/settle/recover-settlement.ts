import { createSettleFailure, REASONS, type SettleResponse } from '@tollgate/core'
import { type Hash, type PublicClient, TransactionNotFoundError } from 'viem'
import { VALID_BEFORE_MARGIN_SECONDS } from '../constants.js'
import { describeError } from '../rpc/describe-error.js'
import { type AwaitSettlementParameters, awaitSettlement } from './await-settlement.js'

// Blocks per eth_getLogs request: many RPC providers refuse wider ranges.
const LOG_CHUNK_BLOCKS = 2_000n

/** The RPC capability a recovery needs besides the scheme's own reads (a viem PublicClient fits). */
export type RecoveryClient = Pick<
  PublicClient,
  'getBlock' | 'getTransaction' | 'getTransactionReceipt' | 'getLogs'
>

/**
 * How a payment's nonce was spent, as the chain's logs show: by a transaction that made the
 * payment's transfer, or in a way that voids the payment for good (the payer canceled the nonce,
 * or spent it on a different authorization).
 */
export type PaymentUse = { kind: 'transfer'; transaction: Hash } | { kind: 'void'; message: string }

/** The scheme-specific reads of a recovery (EIP-3009 authorization state, Permit2 nonce bitmap). */
export type PaymentProbe = {
  /** Whether the payment's nonce is spent at the latest block; `undefined` when it cannot be read. */
  isUsed(): Promise<boolean | undefined>
  /** Whether no block with timestamp `chainTime` (seconds) or later can execute the payment. */
  isExpiredAt(chainTime: bigint): boolean
  /** The uses of the payment's nonce in blocks `fromBlock..toBlock` (inclusive). */
  findUses(fromBlock: bigint, toBlock: bigint): Promise<PaymentUse[]>
  /** x402 reasons of a payment that expired unused, and of one whose nonce was voided. */
  reasons: { expired: string; voided: string }
}

/** Parameters of {@link recoverSettlement}; `hash` is the transaction an earlier attempt recorded (`SettleContext.previousTransaction`). */
export type RecoverSettlementParameters = AwaitSettlementParameters & {
  client: RecoveryClient
  /** How many recent blocks to search for the transaction that used the payment's nonce. */
  lookbackBlocks: bigint
  /** How far chain time must be past the deadline before the payment counts as expired (s). */
  expiryMarginSeconds: bigint
  probe: PaymentProbe
  /** Durably records a new transaction before its broadcast (`SettleContext.recordBroadcast`). */
  recordBroadcast(transaction: string): Promise<void>
  /** Settles the payment anew: full verify, a new relayer transaction recorded through `record`. */
  resend(record: (transaction: string) => Promise<void>): Promise<SettleResponse>
}

/**
 * Re-awaits a recorded settlement transaction and, when no receipt comes, finds out whether the
 * payment can still happen. The token contract allows at most one transfer per authorization
 * nonce, so a payment whose recorded transaction is provably not going to be mined may be sent
 * again: that keeps exactly-once even if the old transaction resurfaces (one of the two reverts).
 *
 * No receipt within `timeoutMs`, then:
 * - the node knows the transaction as mined → pending (the receipt comes on the next pass);
 * - the payment's nonce is used → success with the transaction that made the transfer, a final
 *   failure when logs show the nonce canceled or spent on another authorization, else pending;
 * - unused and expired by chain time (latest block, minus a reorg margin) → final failure: no
 *   block can execute it any more, so the payer's money never moved;
 * - unused, valid, and still in the node's pool → pending (it may yet be mined or replaced);
 * - unused, valid, unknown to the node (dropped) → settle anew and record the new hash, unless
 *   chain time is within 6 s of the deadline (a new transaction could only revert) → pending.
 * Anything the chain does not prove (a read failed, a re-verify refused, a send failed) is
 * `settlement_pending`, never a failure: expiry settles it for good later.
 */
export async function recoverSettlement(parameters: RecoverSettlementParameters): Promise<SettleResponse> {
  const state = { ...parameters, latest: parameters.hash }
  const awaited = await awaitSettlement(parameters)
  if (awaited.success) {
    return awaited
  }
  try {
    if (awaited.errorReason !== REASONS.settlementPending) {
      // A receipt without this payment's transfer stands, unless the payment moved in another
      // transaction (a dropped one that resurfaced and won the nonce).
      return (await findTransferElsewhere(state)) ?? awaited
    }
    return await recoverUnconfirmed(state)
  } catch (error) {
    return pending(state, `recovery could not read the chain: ${describeError(error)}`)
  }
}

type RecoveryState = RecoverSettlementParameters & { latest: string }

async function recoverUnconfirmed(state: RecoveryState): Promise<SettleResponse> {
  const { client, probe } = state
  const [known, head] = await Promise.all([
    getKnownTransaction(client, state.hash),
    client.getBlock({ blockTag: 'latest' }),
  ])
  if (known && known.blockNumber !== null) {
    return pending(state, 'the transaction is mined; its receipt was not read yet')
  }
  // Read after the head: a nonce unused now was unused at the head, whose timestamp decides expiry.
  const used = await probe.isUsed()
  if (used === undefined) {
    return pending(state, "the payment's nonce state could not be read")
  }
  if (used) {
    return answerUsed(state, head.number)
  }
  if (probe.isExpiredAt(head.timestamp - state.expiryMarginSeconds)) {
    return createSettleFailure(state.network, probe.reasons.expired, {
      payer: state.payer,
      errorMessage: "the authorization expired before any transaction used it; the payer's funds never moved",
    })
  }
  if (known) {
    return pending(state, "the transaction is still in the node's pool")
  }
  if (probe.isExpiredAt(head.timestamp + VALID_BEFORE_MARGIN_SECONDS)) {
    // By chain time a new transaction would land after the deadline and only revert: wait for
    // the expiry to be provable instead (as verify refuses authorizations this close to it).
    return pending(state, 'too close to its deadline to send again')
  }
  return resend(state)
}

async function answerUsed(state: RecoveryState, head: bigint): Promise<SettleResponse> {
  const use = await findUse(state, head)
  if (use?.kind === 'transfer') {
    return { success: true, transaction: use.transaction, network: state.network, payer: state.payer }
  }
  if (use?.kind === 'void') {
    return createSettleFailure(state.network, state.probe.reasons.voided, {
      payer: state.payer,
      errorMessage: use.message,
    })
  }
  return pending(
    state,
    `the payment's nonce is used, but no transaction using it was found in the last ${state.lookbackBlocks} blocks`,
  )
}

async function resend(state: RecoveryState): Promise<SettleResponse> {
  const answer = await state.resend(async (transaction) => {
    await state.recordBroadcast(transaction)
    state.latest = transaction
  })
  if (answer.success || answer.errorReason === REASONS.settlementPending) {
    return answer
  }
  if (answer.transaction) {
    return (await findTransferElsewhere(state)) ?? answer
  }
  // Refused before or at the send: nothing proves the payment can never happen (the old
  // transaction may still be in some pool), so it stays pending until mined or expired.
  const detail = answer.errorMessage ? `: ${answer.errorMessage}` : ''
  return pending(state, `not sent again (${answer.errorReason}${detail})`)
}

async function findTransferElsewhere(state: RecoveryState): Promise<SettleResponse | undefined> {
  if (!(await state.probe.isUsed())) {
    return undefined
  }
  const head = await state.client.getBlock({ blockTag: 'latest' })
  const use = await findUse(state, head.number)
  return use?.kind === 'transfer'
    ? { success: true, transaction: use.transaction, network: state.network, payer: state.payer }
    : undefined
}

// Newest blocks first. A transfer anywhere in the window wins over a voiding log: Permit2 lets an
// owner invalidate a nonce after it was spent.
async function findUse(state: RecoveryState, head: bigint): Promise<PaymentUse | undefined> {
  const floor = head >= state.lookbackBlocks ? head - state.lookbackBlocks + 1n : 0n
  let voided: PaymentUse | undefined
  for (let to = head; to >= floor; to -= LOG_CHUNK_BLOCKS) {
    const from = to - LOG_CHUNK_BLOCKS + 1n > floor ? to - LOG_CHUNK_BLOCKS + 1n : floor
    const uses = await state.probe.findUses(from, to)
    const transfer = uses.find((use) => use.kind === 'transfer')
    if (transfer) {
      return transfer
    }
    voided ??= uses[0]
  }
  return voided
}

async function getKnownTransaction(client: RecoveryClient, hash: Hash) {
  try {
    return await client.getTransaction({ hash })
  } catch (error) {
    if (error instanceof TransactionNotFoundError) {
      return undefined
    }
    throw error
  }
}

function pending(state: RecoveryState, message: string): SettleResponse {
  return createSettleFailure(state.network, REASONS.settlementPending, {
    errorMessage: message,
    transaction: state.latest,
    payer: state.payer,
  })
}
