import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet } from '@tollgate/devnet'
import { createMemorySettlementStore, type Facilitator, type SettleLimits } from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'

/** A Base Sepolia devnet and our facilitator over it in process, for the service's x402 tests. */
export type BaseDevnetFacilitator = { devnet: LocalDevnet; facilitator: Facilitator; stop(): Promise<void> }

/**
 * Starts a Base Sepolia-only devnet (light) and a devnet facilitator with a memory settlement store
 * (and `options.limits`, default none).
 */
export async function startBaseDevnetFacilitator(
  options: { limits?: SettleLimits } = {},
): Promise<BaseDevnetFacilitator> {
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === 'eip155:84532') },
  })
  const { facilitator, close } = await createDevnetFacilitator(devnet, {
    store: createMemorySettlementStore(),
    ...(options.limits ? { limits: options.limits } : {}),
  })
  return {
    devnet,
    facilitator,
    stop: async () => {
      close()
      await devnet.stop()
    },
  }
}
