import {
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SettleContext,
  type SettleResponse,
} from '@tollgate/core'
import { getAddress, type Hash } from 'viem'
import { X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import { Permit2Payload } from '../payloads.js'
import type { Relayer } from '../relayer/types.js'
import { awaitSettlement } from '../shared/await-settlement.js'
import type { ExactEvmContext } from '../shared/exact-evm-context.js'
import { mapSettlementError } from '../shared/map-send-error.js'
import { recoverSettlement } from '../shared/recover-settlement.js'
import { createSettleFailure } from '../shared/settle-failure.js'
import { encodeProxySettle } from './permit2-calldata.js'
import { createPermit2Probe } from './recover-permit2.js'
import { type Permit2Verification, verifyPermit2 } from './verify-permit2.js'

/**
 * Settles an x402 exact Permit2 payment: recovers `previousTransaction` if there is one
 * (re-await; settle anew only if the node lost it and the nonce is unused and valid, see
 * `recoverSettlement`); else
 * re-verifies (state reads, no simulation unless configured), sends `proxy.settle` through the
 * relayer with an explicit gas limit, records the hash before broadcasting, and waits (bounded)
 * for the receipt and the token's Transfer log. `prepared`: that re-verification, when it already
 * ran (while the facilitator claimed the payment).
 */
export async function settlePermit2(
  context: ExactEvmContext,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  settle: SettleContext,
  prepared?: Permit2Verification,
): Promise<SettleResponse> {
  const network = requirements.network
  const parsed = Permit2Payload.safeParse(payment.payload)
  if (!parsed.success) {
    return createSettleFailure(network, REASONS.invalidPayload)
  }
  const auth = parsed.data.permit2Authorization
  const payer = getAddress(auth.from)
  const expected = {
    token: getAddress(auth.permitted.token),
    from: payer,
    to: getAddress(auth.witness.to),
    value: BigInt(auth.permitted.amount),
  }
  const wait = (relayer: Relayer, hash: Hash) =>
    awaitSettlement({ relayer, hash, network, payer, expected, timeoutMs: context.receiptTimeoutMs })
  const known = context.networks.get(network)
  if (settle.previousTransaction && known) {
    // An earlier attempt recorded a transaction: re-await it, and if the node lost it, settle
    // anew only when the chain proves the payment has not happened and still can.
    return recoverSettlement({
      client: known.client,
      relayer: known.relayer,
      hash: settle.previousTransaction as Hash,
      network,
      payer,
      expected,
      timeoutMs: context.receiptTimeoutMs,
      ...context.recovery,
      probe: createPermit2Probe(known, auth),
      recordBroadcast: settle.recordBroadcast,
      resend: (recordBroadcast) => settlePermit2(context, payment, requirements, { recordBroadcast }),
    })
  }
  const { response, verified } =
    prepared ?? (await verifyPermit2(context, payment, requirements, { simulate: context.simulateInSettle }))
  if (!verified) {
    return createSettleFailure(network, response.invalidReason ?? REASONS.unexpectedSettleError, {
      payer,
      errorMessage: response.invalidMessage,
    })
  }
  const { net } = verified
  const gas = context.gasLimits.permit2 + (verified.contractSigner ? context.gasLimits.contractWallet : 0n)
  try {
    const sent = await net.relayer.send(
      {
        to: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        data: encodeProxySettle(verified.owner, verified.message, verified.signature),
        gas,
      },
      { onBroadcast: (hash) => settle.recordBroadcast(hash) },
    )
    return wait(net.relayer, sent.hash)
  } catch (error) {
    const errorMessage = error instanceof Error ? error.message : String(error)
    return createSettleFailure(network, mapSettlementError('permit2', errorMessage), { payer, errorMessage })
  }
}
