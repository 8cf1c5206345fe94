import { AppError, isEvmNetwork, isSolanaNetwork } from '@tollgate/core'
import { getAddress, isAddress } from 'viem'
import type { EvmFork } from './evm/start-fork-chain.js'

/** The devnet's command-line flags, parsed: forks, extra funded addresses, and the arguments left. */
export type DevnetFlags = {
  forks: EvmFork[]
  fund: `0x${string}`[]
  /** Every argument that is not a devnet flag, in order (for the caller's own parser). */
  rest: string[]
}

/** What `--help` says about the devnet flags (`npm run devnet` and `npm start` print it). */
export const DEVNET_FLAGS_HELP = `Devnet flags (repeatable):
  --fork <caip2>=<rpc-url>  Run that EVM network as an anvil fork of the RPC (e.g.
                            --fork eip155:8453=https://base-mainnet.example/v2/KEY) instead of
                            a fresh chain: its real tokens and Permit2 are used, what it lacks
                            (x402 Permit2 proxy, Multicall3) is placed, wallets are funded by
                            writing token storage. The fork only reads from the upstream RPC.
                            Solana has no fork: it always stays on LiteSVM.
  --fund <address>          Give an EVM address 10,000 of the native coin, 1,000,000 of every
                            x402 token and a Permit2 approval, on every EVM network.`

const invalid = (flag: string, message: string) =>
  new AppError('invalid_request', {
    message: `${flag}: ${message}`,
    context: { issues: { [flag]: message } },
  })

function parseFork(value: string): EvmFork {
  const at = value.indexOf('=')
  const network = value.slice(0, at)
  const rpcUrl = value.slice(at + 1)
  if (at === -1 || network === '' || rpcUrl === '') {
    throw invalid('--fork', `expected <caip2>=<rpc-url>, got "${value}"`)
  }
  if (isSolanaNetwork(network)) {
    throw invalid('--fork', `${network}: Solana has no fork here, it stays on LiteSVM`)
  }
  if (!isEvmNetwork(network)) {
    throw invalid('--fork', `${network} is not an EVM network (eip155:<chain id>)`)
  }
  let url: URL
  try {
    url = new URL(rpcUrl)
  } catch {
    throw invalid('--fork', `${network}: the RPC URL is not a URL`)
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw invalid('--fork', `${network}: the RPC URL must be http(s) or ws(s)`)
  }
  return { network: network as `eip155:${number}`, rpcUrl }
}

/**
 * Takes `--fork <caip2>=<rpc-url>` and `--fund <address>` (each repeatable, also as `--flag=value`)
 * out of `argv` and returns them parsed, with the other arguments in `rest`. Throws `invalid_request`
 * naming the flag on a malformed value, a Solana fork or a network forked twice.
 */
export function parseDevnetFlags(argv: readonly string[]): DevnetFlags {
  const flags: DevnetFlags = { forks: [], fund: [], rest: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const match = /^--(fork|fund)(?:=(.*))?$/s.exec(arg)
    if (!match) {
      flags.rest.push(arg)
      continue
    }
    const flag = `--${match[1]}`
    const value = match[2] ?? argv[++i]
    if (value === undefined) {
      throw invalid(flag, 'missing value')
    }
    if (flag === '--fund') {
      if (!isAddress(value, { strict: false })) {
        throw invalid(flag, `"${value}" is not an EVM address`)
      }
      flags.fund.push(getAddress(value))
      continue
    }
    const fork = parseFork(value)
    if (flags.forks.some((f) => f.network === fork.network)) {
      throw invalid(flag, `${fork.network} is forked twice`)
    }
    flags.forks.push(fork)
  }
  return flags
}
