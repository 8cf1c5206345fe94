import { createSettleFailure, isAppError, REASONS, type SettleResponse } from '@tollgate/core'
import { type Address, type Hash, type Log, pad } from 'viem'
import type { Relayer } from '../relayer/types.js'

// keccak256("Transfer(address,address,uint256)")
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

/** The ERC-20 transfer a settlement must have produced. */
export type ExpectedTransfer = { token: Address; from: Address; to: Address; value: bigint }

/** Parameters of {@link awaitSettlement}. */
export type AwaitSettlementParameters = {
  relayer: Relayer
  hash: Hash
  network: string
  payer: string
  expected: ExpectedTransfer
  timeoutMs: number
}

/**
 * Waits (bounded) for a settlement transaction and turns its receipt into the x402 answer:
 * success only with status 1 and the expected `Transfer(from, to, value)` log from the token.
 * A wait that times out or fails is `settlement_pending` with the hash, never a failure (docs/x402.md, 'Settlement pending').
 */
export async function awaitSettlement(parameters: AwaitSettlementParameters): Promise<SettleResponse> {
  const { relayer, hash, network, payer, expected } = parameters
  let receipt: Awaited<ReturnType<Relayer['waitForReceipt']>>
  try {
    receipt = await relayer.waitForReceipt(hash, { timeoutMs: parameters.timeoutMs })
  } catch (error) {
    return createSettleFailure(network, REASONS.settlementPending, {
      errorMessage: isAppError(error) ? error.message : 'receipt wait failed',
      transaction: hash,
      payer,
    })
  }
  const transaction = receipt.transactionHash
  if (receipt.status !== 'success') {
    return createSettleFailure(network, REASONS.evmTransactionFailed, { transaction, payer })
  }
  if (!hasTransferLog(receipt.logs, expected)) {
    return createSettleFailure(network, REASONS.evmTransferEventMismatch, { transaction, payer })
  }
  return { success: true, transaction, network, payer }
}

/** Whether `logs` contain the ERC-20 `Transfer(from, to, value)` emitted by `expected.token`. */
export function hasTransferLog(logs: readonly Log[], expected: ExpectedTransfer): boolean {
  const from = pad(expected.from.toLowerCase() as Address)
  const to = pad(expected.to.toLowerCase() as Address)
  return logs.some(
    (log) =>
      log.address.toLowerCase() === expected.token.toLowerCase() &&
      log.topics[0] === TRANSFER_TOPIC &&
      log.topics[1]?.toLowerCase() === from &&
      log.topics[2]?.toLowerCase() === to &&
      log.data !== '0x' &&
      BigInt(log.data) === expected.value,
  )
}
