import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainName } from '../../reference/chains.js'
import type { ChainRegistry } from '../types.js'
import type { JsonRpc } from './json-rpc.js'

type EvmReceipt = { status: string; blockNumber: string } | null
type SignatureStatuses = { value: ({ slot: number; err: unknown } | null)[] }

/**
 * Reads the block (EVM block number, Solana slot) a transaction landed in from the chain's node:
 * null when the chain has no node, the transaction is not in a block yet, or it failed on-chain.
 * Node errors propagate; callers that can do without the block catch them.
 */
export function createBlockNumberReader(options: {
  chains: ChainRegistry
  rpcOf: (network: string) => JsonRpc | undefined
}) {
  return async (input: {
    environment: KeyEnvironment
    chain: ChainName
    txHash: string
  }): Promise<bigint | null> => {
    const entry = options.chains.get(input.environment, input.chain)
    const rpc = entry?.hasNode ? options.rpcOf(entry.network) : undefined
    if (!entry || !rpc) {
      return null
    }
    if (entry.family === 'evm') {
      const receipt = (await rpc.request('eth_getTransactionReceipt', [input.txHash])) as EvmReceipt
      return receipt?.status === '0x1' ? BigInt(receipt.blockNumber) : null
    }
    if (entry.family === 'solana') {
      const statuses = (await rpc.request('getSignatureStatuses', [
        [input.txHash],
        { searchTransactionHistory: true },
      ])) as SignatureStatuses
      const status = statuses.value[0]
      return status && status.err === null ? BigInt(status.slot) : null
    }
    return null
  }
}
