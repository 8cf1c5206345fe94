import type { KeyEnvironment } from '../../http/app-env.js'
import { isLedgerCurrency } from '../../ledger/ledger-currencies.js'
import { type ChainInfo, type ChainName, type ChainToken, chainTable } from '../../reference/chains.js'
import type { ChainAsset, ChainEntry, ChainRegistry } from '../types.js'
import { isValidChainAddress } from './is-valid-chain-address.js'

/** A network the rails can reach: its RPC URL and, for the devnet, the tokens it deployed (they replace the table's). */
export type RailsNetwork = {
  rpcUrl: string
  assets?: Record<
    string,
    {
      symbol: string
      address: string
      decimals: number
      eip712?: ChainToken['eip712'] | undefined
      tokenProgram?: string | undefined
    }
  >
}

/** Options of {@link createChainRegistry}. */
export type ChainRegistryOptions = {
  /** Reachable networks by CAIP-2 id; a chain whose network is missing is simulate-only. */
  networks?: Record<string, RailsNetwork>
  /** Confirmation counts replacing the table's, per environment and chain (tests of the seen state). */
  confirmations?: Partial<Record<KeyEnvironment, Partial<Record<ChainName, number>>>>
}

/** The SPL Token program; Token-2022 mints name their program in the network's assets. */
const splTokenProgram = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'

const tokenKind = { evm: 'erc20', solana: 'spl', tron: 'trc20' } as const

function toAsset(info: ChainInfo, token: ChainToken, programs: Map<string, string>): ChainAsset {
  const kind =
    info.family === 'evm' || info.family === 'solana' || info.family === 'tron'
      ? tokenKind[info.family]
      : 'erc20'
  return {
    symbol: token.symbol,
    kind,
    address: token.address,
    decimals: token.decimals,
    ledgerCurrency: isLedgerCurrency(token.symbol) ? token.symbol : null,
    ...(token.eip712 ? { eip712: token.eip712 } : {}),
    ...(kind === 'spl' ? { tokenProgram: programs.get(token.address) ?? splTokenProgram } : {}),
  }
}

function toEntry(info: ChainInfo, environment: KeyEnvironment, options: ChainRegistryOptions): ChainEntry {
  const network = environment === 'live' ? info.live.networkId : info.networkId
  const reachable = options.networks?.[network]
  const tokens = reachable?.assets
    ? Object.values(reachable.assets).map(
        (a): ChainToken => ({
          symbol: a.symbol,
          name: a.symbol,
          address: a.address,
          decimals: a.decimals,
          ...(a.eip712 ? { eip712: a.eip712 } : {}),
        }),
      )
    : environment === 'live'
      ? info.live.tokens
      : info.tokens
  const programs = new Map(
    Object.values(reachable?.assets ?? {}).flatMap((a) =>
      a.tokenProgram ? [[a.address, a.tokenProgram] as const] : [],
    ),
  )
  const native: ChainAsset = {
    symbol: info.native.symbol,
    kind: 'native',
    address: null,
    decimals: info.native.decimals,
    ledgerCurrency: null,
  }
  const explorer = info.explorer[environment]
  return {
    chain: info.chain,
    network,
    family: info.family,
    assets: [native, ...tokens.map((t) => toAsset(info, t, programs))],
    confirmations: options.confirmations?.[environment]?.[info.chain] ?? info.confirmations[environment],
    hasNode: reachable !== undefined,
    explorerTxUrl: (txHash) => `${explorer}${txHash}`,
  }
}

/**
 * Builds the chain registry from the reference table (docs/rails.md "Chains"): live = the mainnets,
 * test = the sandbox networks, with the devnet's tokens and a node where `networks` has the network.
 */
export function createChainRegistry(options: ChainRegistryOptions = {}): ChainRegistry {
  const entries: Record<KeyEnvironment, ChainEntry[]> = {
    live: chainTable.map((info) => toEntry(info, 'live', options)),
    test: chainTable.map((info) => toEntry(info, 'test', options)),
  }
  const get = (environment: KeyEnvironment, chain: ChainName) =>
    entries[environment].find((e) => e.chain === chain)
  return {
    list: (environment) => entries[environment],
    get,
    getByNetwork: (environment, network) => entries[environment].find((e) => e.network === network),
    findAsset: (environment, chain, symbol) => {
      const wanted = symbol.toUpperCase()
      return get(environment, chain)?.assets.find((a) => a.symbol.toUpperCase() === wanted)
    },
    isValidAddress: (chain, address, environment) => {
      const info = chainTable.find((i) => i.chain === chain)
      return info !== undefined && isValidChainAddress(info.family, address, environment)
    },
  }
}
