import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import { type ChainRailsOptions, createChainRails } from './chains/create-chain-rails.js'
import type { Rails } from './types.js'

/**
 * Options of {@link createRails}. With no `networks`, no chain has a node: addresses are still
 * derived and validated, and payments arrive only through `incoming.simulate` (the default in tests).
 */
export type RailsOptions = ChainRailsOptions

// Scaffold while the rails are being built: each part is replaced by its implementation.
function notBuilt(part: string): never {
  throw new AppError('internal_error', { message: `rails.${part} is not built yet` })
}

/** Builds every rail for the sandbox (deterministic providers, devnet chains when `networks` is given). */
export function createRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: RailsOptions = {},
): Rails {
  const unsubscribe = () => undefined
  const chain = createChainRails(deps, options)
  return {
    chains: chain.chains,
    addresses: chain.addresses,
    incoming: chain.incoming,
    crypto: chain.crypto,
    banks: {
      listBanks: () => notBuilt('banks'),
      resolveAccount: async () => notBuilt('banks'),
      transfer: async () => notBuilt('banks'),
      getTransfer: async () => notBuilt('banks'),
      onTransferUpdate: () => unsubscribe,
    },
    mobileMoney: {
      listInstitutions: () => notBuilt('mobileMoney'),
      resolveAccount: async () => notBuilt('mobileMoney'),
      transfer: async () => notBuilt('mobileMoney'),
      getTransfer: async () => notBuilt('mobileMoney'),
      onTransferUpdate: () => unsubscribe,
    },
    virtualAccounts: {
      create: async () => notBuilt('virtualAccounts'),
      onInboundTransfer: () => unsubscribe,
    },
    fx: {
      getRate: async () => notBuilt('fx'),
      listRates: async () => notBuilt('fx'),
      convert: () => notBuilt('fx'),
    },
    screening: { screen: async () => notBuilt('screening') },
    start: () => chain.start(),
    stop: () => chain.stop(),
  }
}
