import { AppError } from '@tollgate/core'
import { type Chain, defineChain } from 'viem'
import type { DevnetNetwork } from '../types.js'
import { MULTICALL3_ADDRESS } from './addresses.js'

const NATIVE: Record<number, { name: string; symbol: string }> = {
  97: { name: 'BNB', symbol: 'tBNB' },
}

/**
 * A viem `Chain` for a devnet EVM network: its chain id, its local RPC URL and Multicall3 (so viem's
 * `multicall` works). Pair it with `pollingInterval: 50` on clients: anvil mines instantly and viem's
 * default 4 s polling would make every receipt wait slow.
 *
 * @example
 * const client = createPublicClient({ chain: toViemChain(net), transport: http(), pollingInterval: 50 })
 */
export function toViemChain(network: DevnetNetwork): Chain {
  if (network.kind !== 'evm' || network.chainId === undefined) {
    throw new AppError('invalid_network', {
      context: { network: network.network },
      message: `${network.network} is not EVM`,
    })
  }
  return defineChain({
    id: network.chainId,
    name: `Tollgate devnet ${network.network}`,
    nativeCurrency: { decimals: 18, ...(NATIVE[network.chainId] ?? { name: 'Ether', symbol: 'ETH' }) },
    rpcUrls: { default: { http: [network.rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
    testnet: true,
  })
}
