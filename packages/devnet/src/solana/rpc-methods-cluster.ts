import { createInvalidParamsError } from './rpc-error.js'
import { readConfig, readString, SOLANA_API_VERSION, withContext } from './rpc-params.js'
import type { RpcHandler } from './rpc-server.js'
import type { SolanaChain } from './solana-chain.js'

/**
 * Solana devnet's genesis hash. Its first 32 characters are the CAIP-2 reference of
 * `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`, so clients that derive the network from getGenesisHash see devnet.
 */
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG'

/** Cluster and block methods: slots, heights, blockhashes, epoch, version, health. */
export function createClusterMethods(chain: SolanaChain): Record<string, RpcHandler> {
  const epochInfo = () => {
    const slotsInEpoch = chain.svm.getEpochSchedule().slotsPerEpoch
    return {
      absoluteSlot: chain.slot,
      blockHeight: chain.blockHeight,
      epoch: chain.slot / slotsInEpoch,
      slotIndex: chain.slot % slotsInEpoch,
      slotsInEpoch,
      transactionCount: chain.transactionCount,
    }
  }
  return {
    getSlot: () => chain.slot,
    getBlockHeight: () => chain.blockHeight,
    getLatestBlockhash: () => withContext(chain, chain.getLatestBlockhash()),
    isBlockhashValid: (params) => {
      readConfig(params, 1)
      return withContext(chain, chain.isBlockhashValid(readString(params, 0)))
    },
    getGenesisHash: () => DEVNET_GENESIS_HASH,
    getVersion: () => ({ 'solana-core': SOLANA_API_VERSION, 'feature-set': 3294202862 }),
    getHealth: () => 'ok',
    getEpochInfo: () => epochInfo(),
    getEpochSchedule: () => {
      const schedule = chain.svm.getEpochSchedule()
      return {
        slotsPerEpoch: schedule.slotsPerEpoch,
        leaderScheduleSlotOffset: schedule.leaderScheduleSlotOffset,
        warmup: schedule.warmup,
        firstNormalEpoch: schedule.firstNormalEpoch,
        firstNormalSlot: schedule.firstNormalSlot,
      }
    },
    getTransactionCount: () => chain.transactionCount,
    getFirstAvailableBlock: () => 0n,
    getRecentPrioritizationFees: (params) => {
      if (params[0] !== undefined && !Array.isArray(params[0])) {
        throw createInvalidParamsError('Invalid params: expected an array of addresses')
      }
      return [{ slot: chain.slot, prioritizationFee: 0n }]
    },
    getBlockTime: () => BigInt(Math.floor(Date.now() / 1000)),
  }
}
