import type { Network, SchemeFacilitator } from '@tollgate/core'
import { createExactEvmContext, type EvmFacilitatorOptions } from '../exact/exact-evm-context.js'
import { readClaimedPayer } from '../exact/read-claimed-payer.js'
import { type PreparedSettle, prepareSettle, takePrepared } from '../settle/settle-preparation.js'
import { getEip3009PaymentKey } from './payment-key.js'
import { settleEip3009 } from './settle-eip3009.js'
import { type Eip3009Verification, verifyEip3009 } from './verify-eip3009.js'

/**
 * The facilitator side of x402 `exact` on EVM via EIP-3009 (`transferWithAuthorization`), for
 * payloads carrying `authorization`. Settlement key: `eip3009:<chainId>:<asset>:<from>:<nonce>`.
 */
export function createEip3009Facilitator(
  options: EvmFacilitatorOptions,
): SchemeFacilitator<PreparedSettle<Eip3009Verification>> {
  const context = createExactEvmContext(options)
  const networks = [...context.networks.keys()] as Network[]
  return {
    name: 'eip3009',
    networks,
    canHandle: (payment, requirements) =>
      context.networks.has(requirements.network) &&
      typeof payment.payload.authorization === 'object' &&
      !('permit2Authorization' in payment.payload),
    getSupportedExtra: () => undefined,
    getSigners: (network) => context.networks.get(network)?.relayer.getAddresses() ?? [],
    getSettlementKey: (payment, requirements) =>
      context.networks.has(requirements.network) ? getEip3009PaymentKey(payment, requirements) : undefined,
    getPayer: (payment) => readClaimedPayer(payment.payload.authorization),
    verify: async (payment, requirements, verifyOptions) =>
      (await verifyEip3009(context, payment, requirements, verifyOptions)).response,
    prepareSettle: (payment, requirements) =>
      prepareSettle(payment, () =>
        verifyEip3009(context, payment, requirements, { simulate: context.simulateInSettle }),
      ),
    settle: (payment, requirements, settleContext) =>
      settleEip3009(
        context,
        payment,
        requirements,
        settleContext,
        takePrepared(settleContext.prepared, payment),
      ),
  }
}
