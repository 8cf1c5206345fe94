import { createSettleFailure, REASONS, type SettleContext, type SettleResponse } from '@tollgate/core'
import type { Address, Hash } from 'viem'
import type { ExactEvmContext, ExactEvmNetwork } from '../exact/exact-evm-context.js'
import type { ExactVerification } from '../exact/exact-verification.js'
import { awaitSettlement, type ExpectedTransfer } from './await-settlement.js'
import { mapSettlementError } from './map-send-error.js'
import { type PaymentProbe, recoverSettlement } from './recover-settlement.js'

/** What one exact-EVM scheme (eip3009, permit2) brings to {@link settleExact}. */
export type ExactSettlePlan<V extends { net: ExactEvmNetwork }> = {
  scheme: 'eip3009' | 'permit2'
  network: string
  payer: Address
  expected: ExpectedTransfer
  /** Settle's re-verification (state reads; the simulation only when configured). */
  verify(): Promise<ExactVerification<V>>
  /** Reads the payment's nonce on chain, for recovering a recorded transaction. */
  createProbe(net: ExactEvmNetwork): PaymentProbe
  /**
   * Sends the settlement transaction, calling `onBroadcast` before its broadcast, and returns its
   * hash; or answers a failure of a step before it (an ERC-6492 wallet deployment).
   */
  send(verified: V, onBroadcast: (hash: Hash) => Promise<void>): Promise<Hash | SettleResponse>
  /** Settles the payment anew with another `recordBroadcast` (recovery of a dropped transaction). */
  resend(recordBroadcast: (transaction: string) => Promise<void>): Promise<SettleResponse>
}

/**
 * The settle path both exact-EVM schemes share: recover `previousTransaction` if there is one (re-await;
 * settle anew only if the node lost it and the payment is unused and valid, see `recoverSettlement`);
 * else re-verify (or take `prepared`, the same re-verification run while the facilitator claimed the
 * payment), send through the relayer, and wait (bounded) for the receipt and the token's Transfer log.
 */
export async function settleExact<V extends { net: ExactEvmNetwork }>(
  context: ExactEvmContext,
  settle: SettleContext,
  prepared: ExactVerification<V> | undefined,
  plan: ExactSettlePlan<V>,
): Promise<SettleResponse> {
  const { network, payer, expected } = plan
  const known = context.networks.get(network)
  if (settle.previousTransaction && known) {
    return recoverSettlement({
      client: known.client,
      relayer: known.relayer,
      hash: settle.previousTransaction as Hash,
      network,
      payer,
      expected,
      timeoutMs: context.receiptTimeoutMs,
      ...context.recovery,
      probe: plan.createProbe(known),
      recordBroadcast: settle.recordBroadcast,
      resend: plan.resend,
    })
  }
  const { response, verified } = prepared ?? (await plan.verify())
  if (!verified) {
    return createSettleFailure(network, response.invalidReason ?? REASONS.unexpectedSettleError, {
      payer,
      errorMessage: response.invalidMessage,
    })
  }
  let sent: Hash | SettleResponse
  try {
    sent = await plan.send(verified, (hash) => settle.recordBroadcast(hash))
  } catch (error) {
    const errorMessage = error instanceof Error ? error.message : String(error)
    return createSettleFailure(network, mapSettlementError(plan.scheme, errorMessage), {
      payer,
      errorMessage,
    })
  }
  if (typeof sent !== 'string') {
    return sent
  }
  // Outside the try: once broadcast, an error while waiting must reach the facilitator (which
  // keeps the settlement pending for reconciliation), never become a send failure.
  const { relayer } = verified.net
  return awaitSettlement({
    relayer,
    hash: sent,
    network,
    payer,
    expected,
    timeoutMs: context.receiptTimeoutMs,
  })
}
