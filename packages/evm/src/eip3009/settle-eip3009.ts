import {
  createSettleFailure,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SettleContext,
  type SettleResponse,
} from '@tollgate/core'
import { getAddress, type Hex } from 'viem'
import type { ExactEvmContext } from '../exact/exact-evm-context.js'
import { Eip3009Payload } from '../payloads.js'
import { deployCounterfactualWallet } from '../settle/deploy-counterfactual-wallet.js'
import { settleExact } from '../settle/settle-exact.js'
import { encodeTransferWithAuthorization } from './eip3009-calldata.js'
import { createEip3009Probe } from './recover-eip3009.js'
import { type Eip3009Verification, type VerifiedEip3009, verifyEip3009 } from './verify-eip3009.js'

/**
 * Settles an x402 exact EIP-3009 payment through {@link settleExact}: `transferWithAuthorization`
 * with an explicit gas limit (plus the wallet's deployment first for ERC-6492, once per wallet: see
 * `deployCounterfactualWallet`). `prepared`: settle's re-verification, when it already ran (while
 * the facilitator claimed the payment).
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
  return settleExact<VerifiedEip3009>(context, settle, prepared, {
    scheme: 'eip3009',
    network,
    payer,
    expected,
    verify: () => verifyEip3009(context, payment, requirements, { simulate: context.simulateInSettle }),
    createProbe: (net) =>
      createEip3009Probe(net, {
        expected,
        nonce: authorization.nonce as Hex,
        validBefore: BigInt(authorization.validBefore),
      }),
    resend: (recordBroadcast) => settleEip3009(context, payment, requirements, { recordBroadcast }),
    async send({ signature, message, net }, onBroadcast) {
      let gas = context.gasLimits.eip3009
      if (signature.kind === 'erc6492') {
        gas += context.gasLimits.contractWallet
        const deployed = await deployCounterfactualWallet(net, {
          wallet: payer,
          factory: signature.factory,
          factoryData: signature.factoryData,
          gas: context.gasLimits.contractWallet * 5n,
          timeoutMs: context.receiptTimeoutMs,
        })
        if (!deployed) {
          return createSettleFailure(network, REASONS.evmSmartWalletDeploymentFailed, { payer })
        }
      } else if (signature.kind === 'erc1271') {
        gas += context.gasLimits.contractWallet
      }
      const data = encodeTransferWithAuthorization(message, signature.signature)
      return (await net.relayer.send({ to: expected.token, data, gas }, { onBroadcast })).hash
    },
  })
}
