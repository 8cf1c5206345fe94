import { AppError } from '@tollgate/core'
import { type EvmDevnet, type StartEvmDevnetOptions, startEvmDevnet } from './evm/start-evm-devnet.js'
import type { SolanaDevnet, StartSolanaDevnetOptions } from './solana/start-solana-devnet.js'
import { startSolanaDevnet } from './solana/start-solana-devnet.js'
import type { Devnet, FundParameters } from './types.js'

/** Options of {@link startDevnet}: `false` leaves a chain family out. */
export type StartDevnetOptions = {
  evm?: StartEvmDevnetOptions | false
  solana?: StartSolanaDevnetOptions | false
}

/**
 * A running devnet of both chain families. `evm` and `solana` are the parts (undefined when left out),
 * for their extras: the EVM token owner key, `mine`, `setAutomine`, anvil pids; Solana `advanceBlocks`.
 */
export type LocalDevnet = Devnet & { evm: EvmDevnet | undefined; solana: SolanaDevnet | undefined }

/**
 * Starts the local chains in parallel: one anvil per EVM network (fixtures deployed, wallets funded)
 * and the LiteSVM-backed Solana JSON-RPC server. Everything listens on 127.0.0.1 with OS-assigned ports.
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<LocalDevnet> {
  const [evm, solana] = await Promise.allSettled([
    options.evm === false ? undefined : startEvmDevnet(options.evm ?? {}),
    options.solana === false ? undefined : startSolanaDevnet(options.solana ?? {}),
  ])
  const parts = [evm, solana].flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []))
  const failure = [evm, solana].find((r) => r.status === 'rejected')
  if (failure) {
    await Promise.allSettled(parts.map((p) => p.stop()))
    throw failure.reason
  }
  const owner = (network: string): Devnet => {
    const part = parts.find((p) => network in p.networks)
    if (!part) {
      throw new AppError('invalid_network', {
        context: { network },
        message: `devnet: unknown network ${network}`,
      })
    }
    return part
  }
  let stopped: Promise<void> | undefined
  return {
    networks: Object.assign({}, ...parts.map((p) => p.networks)),
    wallets: parts.flatMap((p) => p.wallets),
    evm: evm.status === 'fulfilled' ? evm.value : undefined,
    solana: solana.status === 'fulfilled' ? solana.value : undefined,
    fund: async (parameters: FundParameters) => owner(parameters.network).fund(parameters),
    stop: () => {
      stopped ??= Promise.allSettled(parts.map((p) => p.stop())).then(() => undefined)
      return stopped
    },
  }
}
