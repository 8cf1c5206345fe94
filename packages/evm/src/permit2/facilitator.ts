import type { Network, SchemeFacilitator } from '@tollgate/core'
import { createExactEvmContext, type EvmFacilitatorOptions } from '../exact/exact-evm-context.js'
import { readClaimedPayer } from '../exact/read-claimed-payer.js'
import { type PreparedSettle, prepareSettle, takePrepared } from '../settle/settle-preparation.js'
import { getPermit2PaymentKey } from './payment-key.js'
import { settlePermit2 } from './settle-permit2.js'
import { type Permit2Verification, verifyPermit2 } from './verify-permit2.js'

/**
 * The facilitator side of x402 `exact` on EVM via Permit2 and the x402 exact proxy, for payloads
 * carrying `permit2Authorization`. Settlement key: `permit2:<chainId>:<owner>:<nonce>`.
 */
export function createPermit2Facilitator(
  options: EvmFacilitatorOptions,
): SchemeFacilitator<PreparedSettle<Permit2Verification>> {
  const context = createExactEvmContext(options)
  const networks = [...context.networks.keys()] as Network[]
  return {
    name: 'permit2',
    networks,
    canHandle: (payment, requirements) =>
      context.networks.has(requirements.network) && typeof payment.payload.permit2Authorization === 'object',
    getSupportedExtra: () => undefined,
    getSigners: (network) => context.networks.get(network)?.relayer.getAddresses() ?? [],
    getSettlementKey: (payment, requirements) =>
      context.networks.has(requirements.network) ? getPermit2PaymentKey(payment, requirements) : undefined,
    getPayer: (payment) => readClaimedPayer(payment.payload.permit2Authorization),
    verify: async (payment, requirements, verifyOptions) =>
      (await verifyPermit2(context, payment, requirements, verifyOptions)).response,
    prepareSettle: (payment, requirements) =>
      prepareSettle(payment, () =>
        verifyPermit2(context, payment, requirements, { simulate: context.simulateInSettle }),
      ),
    settle: (payment, requirements, settleContext) =>
      settlePermit2(
        context,
        payment,
        requirements,
        settleContext,
        takePrepared(settleContext.prepared, payment),
      ),
  }
}
