import type { Deps } from '../deps.js'
import { type ChainRailsOptions, createChainRails } from './chains/create-chain-rails.js'
import { createSandboxFiatRails } from './fiat/create-sandbox-fiat-rails.js'
import type { SandboxFiatOptions } from './fiat/sandbox-fiat-transfers.js'
import type { Rails } from './types.js'

/**
 * Options of {@link createRails}: the chain rails' (master seed, networks with their RPC URLs,
 * confirmations, poll interval) and the sandbox fiat providers'. With no `networks`, no chain has a
 * node: addresses are still derived and validated, and payments arrive only through
 * `incoming.simulate` (the default in tests).
 */
export type RailsOptions = ChainRailsOptions & {
  /** Sandbox bank / mobile-money providers (callback delay); see docs/rails-fiat.md. */
  fiat?: SandboxFiatOptions
}

/** Builds every rail: the chains (devnet or configured RPCs) and the deterministic sandbox providers. */
export function createRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: RailsOptions = {},
): Rails {
  const chain = createChainRails(deps, options)
  return {
    chains: chain.chains,
    addresses: chain.addresses,
    incoming: chain.incoming,
    crypto: chain.crypto,
    ...createSandboxFiatRails(deps, options.fiat),
    start: () => chain.start(),
    stop: () => chain.stop(),
  }
}
