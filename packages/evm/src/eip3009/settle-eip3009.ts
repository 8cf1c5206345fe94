import {
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SettleContext,
  type SettleResponse,
} from '@tollgate/core'
import { getAddress, type Hash, type Hex } from 'viem'
import { Eip3009Payload } from '../payloads.js'
import type { Relayer } from '../relayer/types.js'
import { awaitSettlement } from '../shared/await-settlement.js'
import type { ExactEvmContext } from '../shared/exact-evm-context.js'
import { mapSettlementError } from '../shared/map-send-error.js'
import { recoverSettlement } from '../shared/recover-settlement.js'
import { createSettleFailure } from '../shared/settle-failure.js'
import { encodeTransferWithAuthorization } from './eip3009-calldata.js'
import { createEip3009Probe } from './recover-eip3009.js'
import { type Eip3009Verification, verifyEip3009 } from './verify-eip3009.js'

/**
 * Settles an x402 exact EIP-3009 payment: recovers `previousTransaction` if there is one
 * (re-await; settle anew only if the node lost it and the authorization is unused and valid, see
 * `recoverSettlement`); else
 * re-verifies (state reads, no simulation unless configured), sends `transferWithAuthorization`
 * through the relayer with an explicit gas limit, records the hash before broadcasting, and waits
 * (bounded) for the receipt and the token's Transfer log. `prepared`: that re-verification, when
 * it already ran (while the facilitator claimed the payment).
 */
export async function settleEip3009(
  context: ExactEvmContext,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  settle: SettleContext,
  prepared?: Eip3009Verification,
): Promise<SettleResponse> {
  const network = requirements.network
  const parsed = Eip3009Payload.safeParse(payment.payload)
  if (!parsed.success) {
    return createSettleFailure(network, REASONS.invalidPayload)
  }
  const { authorization } = parsed.data
  const payer = getAddress(authorization.from)
  const expected = {
    token: getAddress(requirements.asset),
    from: payer,
    to: getAddress(authorization.to),
    value: BigInt(authorization.value),
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
      probe: createEip3009Probe(known, {
        expected,
        nonce: authorization.nonce as Hex,
        validBefore: BigInt(authorization.validBefore),
      }),
      recordBroadcast: settle.recordBroadcast,
      resend: (recordBroadcast) => settleEip3009(context, payment, requirements, { recordBroadcast }),
    })
  }
  const { response, verified } =
    prepared ?? (await verifyEip3009(context, payment, requirements, { simulate: context.simulateInSettle }))
  if (!verified) {
    return createSettleFailure(network, response.invalidReason ?? REASONS.unexpectedSettleError, {
      payer,
      errorMessage: response.invalidMessage,
    })
  }
  const { signature, message, net } = verified
  let gas = context.gasLimits.eip3009
  try {
    if (signature.kind === 'erc6492') {
      gas += context.gasLimits.contractWallet
      const deployment = await net.relayer.send({
        to: signature.factory,
        data: signature.factoryData,
        gas: context.gasLimits.contractWallet * 5n,
      })
      const receipt = await net.relayer.waitForReceipt(deployment.hash, {
        timeoutMs: context.receiptTimeoutMs,
      })
      if (receipt.status !== 'success') {
        return createSettleFailure(network, REASONS.evmSmartWalletDeploymentFailed, { payer })
      }
    } else if (signature.kind === 'erc1271') {
      gas += context.gasLimits.contractWallet
    }
    const sent = await net.relayer.send(
      { to: expected.token, data: encodeTransferWithAuthorization(message, signature.signature), gas },
      { onBroadcast: (hash) => settle.recordBroadcast(hash) },
    )
    return wait(net.relayer, sent.hash)
  } catch (error) {
    const errorMessage = error instanceof Error ? error.message : String(error)
    return createSettleFailure(network, mapSettlementError('eip3009', errorMessage), { payer, errorMessage })
  }
}
