import type { StartSolanaDevnetOptions } from './solana/start-solana-devnet.js'
import { startSolanaDevnet } from './solana/start-solana-devnet.js'
import type { Devnet, FundParameters } from './types.js'

/** Options of {@link startDevnet}: `false` leaves a chain family out. */
export type StartDevnetOptions = {
  solana?: StartSolanaDevnetOptions | false
}

/**
 * Starts the local chains: one anvil per EVM network (fixtures deployed, wallets funded) and the
 * LiteSVM-backed Solana JSON-RPC server. Everything listens on 127.0.0.1 with OS-assigned ports.
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const started = await Promise.allSettled([
    options.solana === false ? undefined : startSolanaDevnet(options.solana ?? {}),
  ])
  const parts = started.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []))
  const failure = started.find((r) => r.status === 'rejected')
  if (failure) {
    await Promise.allSettled(parts.map((p) => p.stop()))
    throw failure.reason
  }
  const owner = (network: string): Devnet => {
    const part = parts.find((p) => network in p.networks)
    if (!part) {
      throw new Error(`devnet: unknown network ${network}`)
    }
    return part
  }
  return {
    networks: Object.assign({}, ...parts.map((p) => p.networks)),
    wallets: parts.flatMap((p) => p.wallets),
    fund: (parameters: FundParameters) => owner(parameters.network).fund(parameters),
    stop: async () => {
      await Promise.allSettled(parts.map((p) => p.stop()))
    },
  }
}
