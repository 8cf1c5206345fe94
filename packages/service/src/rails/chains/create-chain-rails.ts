import { randomBytes } from 'node:crypto'
import { hexToBytes } from 'viem'
import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainName } from '../../reference/chains.js'
import type { Rails } from '../types.js'
import { createChainRegistry, type RailsNetwork } from './create-chain-registry.js'
import { createDepositAddresses } from './create-deposit-addresses.js'
import { createIncomingTransfers } from './create-incoming-transfers.js'
import { createEvmWatcher } from './evm-watcher.js'
import { createIncomingHub } from './incoming-store.js'
import { createJsonRpc } from './json-rpc.js'
import { startWatchLoop, type WatchLoop } from './watch-loop.js'

/** Options of {@link createChainRails} (the chain part of `RailsOptions`). */
export type ChainRailsOptions = {
  /** 64-byte master seed (hex) of deposit addresses; a random one per process when absent (tests only). */
  masterSeed?: string
  networks?: Record<string, RailsNetwork>
  /** Confirmation counts replacing the reference table's (tests of the seen state). */
  confirmations?: Partial<Record<KeyEnvironment, Partial<Record<ChainName, number>>>>
  /** Watcher poll interval (ms; default 1000, the sandbox uses 250). */
  pollIntervalMs?: number
}

/** The chain rails: registry, deposit addresses, incoming transfers, and the watchers started by `start()`. */
export type ChainRails = Pick<Rails, 'chains' | 'addresses' | 'incoming' | 'start' | 'stop'>

/**
 * Builds the chain part of the rails (docs/rails.md "Chains"). Every network of `networks` gets a
 * watcher on `start()`; without `networks` every chain is simulate-only and nothing polls.
 */
export function createChainRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: ChainRailsOptions = {},
): ChainRails {
  const seed = options.masterSeed ? hexToBytes(`0x${options.masterSeed.replace(/^0x/, '')}`) : randomBytes(64)
  const chains = createChainRegistry({
    ...(options.networks ? { networks: options.networks } : {}),
    ...(options.confirmations ? { confirmations: options.confirmations } : {}),
  })
  const hub = createIncomingHub()
  const addresses = createDepositAddresses(deps, { seed, chains })
  const incoming = createIncomingTransfers(deps, { hub, chains, addresses })
  let loops: WatchLoop[] = []
  return {
    chains,
    addresses,
    incoming,
    start: async () => {
      if (loops.length > 0) {
        return
      }
      for (const entry of chains.list('test').concat(chains.list('live'))) {
        const network = options.networks?.[entry.network]
        if (!network || entry.family !== 'evm') {
          continue
        }
        const rpc = createJsonRpc(network.rpcUrl, { network: entry.network })
        const watcher = createEvmWatcher(deps, { entry, rpc, hub })
        loops.push(
          startWatchLoop(watcher.poll, {
            intervalMs: options.pollIntervalMs ?? 1_000,
            logger: deps.logger,
            name: entry.network,
          }),
        )
      }
    },
    stop: async () => {
      const running = loops
      loops = []
      await Promise.all(running.map((loop) => loop.stop()))
    },
  }
}
