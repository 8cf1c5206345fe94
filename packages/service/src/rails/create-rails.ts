import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import { createSandboxFiatRails } from './fiat/create-sandbox-fiat-rails.js'
import type { SandboxFiatOptions } from './fiat/sandbox-fiat-transfers.js'
import type { Rails } from './types.js'

/**
 * Options of {@link createRails}. With no `networks`, no chain has a node: addresses are still
 * derived and validated, and payments arrive only through `incoming.simulate` (the default in tests).
 */
export type RailsOptions = {
  /** 64-byte master seed (hex) for deposit addresses; the sandbox generates and keeps one. */
  masterSeed?: string
  /** RPC endpoints per CAIP-2 network (the devnet's in the sandbox, real ones in production). */
  networks?: Record<string, { rpcUrl: string }>
  /** Sandbox bank / mobile-money providers (callback delay); see docs/rails-fiat.md. */
  fiat?: SandboxFiatOptions
}

// Scaffold while the rails are being built: each part is replaced by its implementation.
function notBuilt(part: string): never {
  throw new AppError('internal_error', { message: `rails.${part} is not built yet` })
}

/**
 * Builds every rail for the sandbox (deterministic providers, devnet chains when `networks` is given).
 * The fiat, FX and screening parts are the sandbox providers of docs/rails-fiat.md.
 */
export function createRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: RailsOptions = {},
): Rails {
  const unsubscribe = () => undefined
  return {
    chains: {
      list: () => notBuilt('chains'),
      get: () => notBuilt('chains'),
      getByNetwork: () => notBuilt('chains'),
      findAsset: () => notBuilt('chains'),
      isValidAddress: () => notBuilt('chains'),
    },
    addresses: { allocate: async () => notBuilt('addresses'), find: async () => notBuilt('addresses') },
    incoming: {
      subscribe: () => unsubscribe,
      simulate: async () => notBuilt('incoming'),
      list: async () => notBuilt('incoming'),
    },
    crypto: {
      send: async () => notBuilt('crypto'),
      get: async () => notBuilt('crypto'),
      onSettled: () => unsubscribe,
    },
    ...createSandboxFiatRails(deps, options.fiat),
    start: async () => undefined,
    stop: async () => undefined,
  }
}
