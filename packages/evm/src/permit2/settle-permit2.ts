import {
  createSettleFailure,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SettleContext,
  type SettleResponse,
} from '@tollgate/core'
import { getAddress } from 'viem'
import { X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import type { ExactEvmContext } from '../exact/exact-evm-context.js'
import { Permit2Payload } from '../payloads.js'
import { settleExact } from '../settle/settle-exact.js'
import { encodeProxySettle } from './permit2-calldata.js'
import { createPermit2Probe } from './recover-permit2.js'
import { type Permit2Verification, type VerifiedPermit2, verifyPermit2 } from './verify-permit2.js'

/**
 * Settles an x402 exact Permit2 payment through {@link settleExact}: the x402 exact proxy's
 * `settle` with an explicit gas limit. `prepared`: settle's re-verification, when it already ran
 * (while the facilitator claimed the payment).
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
  return settleExact<VerifiedPermit2>(context, settle, prepared, {
    scheme: 'permit2',
    network,
    payer,
    expected,
    verify: () => verifyPermit2(context, payment, requirements, { simulate: context.simulateInSettle }),
    createProbe: (net) => createPermit2Probe(net, auth),
    resend: (recordBroadcast) => settlePermit2(context, payment, requirements, { recordBroadcast }),
    async send(verified, onBroadcast) {
      const gas =
        context.gasLimits.permit2 + (verified.contractSigner ? context.gasLimits.contractWallet : 0n)
      const data = encodeProxySettle(verified.owner, verified.message, verified.signature)
      const sent = await verified.net.relayer.send(
        { to: X402_EXACT_PERMIT2_PROXY_ADDRESS, data, gas },
        { onBroadcast },
      )
      return sent.hash
    },
  })
}
