import { AppError } from '@tollgate/core'
import { encodeFunctionData, hexToBigInt, isAddress, numberToHex } from 'viem'
import type { Devnet, DevnetAsset, DevnetNetwork, DevnetWallet, FundParameters } from '../types.js'
import { usdtLikeAbi } from './abis.js'
import { MULTICALL3_ADDRESS, PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from './addresses.js'
import { spawnAnvil } from './anvil-process.js'
import { type EvmAccount, getAnvilAccounts } from './dev-accounts.js'
import { setBalanceCall, setTotalSupplyCall } from './erc20-storage.js'
import { deployErc4337Stack } from './erc4337/deploy-erc4337-stack.js'
import { DEFAULT_EVM_NETWORKS, type EvmNetworkConfig } from './evm-networks.js'
import { DEFAULT_FORK_PLACERS, type EvmPlacer } from './fork-placers.js'
import { createJsonRpc, type JsonRpc } from './json-rpc.js'
import { setupEvmFixtures } from './setup-evm-fixtures.js'
import { type EvmFork, startForkChain, WALLET_GAS } from './start-fork-chain.js'

/** How blocks get made after setup: on every transaction (default), only on `mine()`, or every `blockTime` seconds. */
export type EvmMining = 'auto' | 'manual' | { blockTime: number }

/**
 * Options of {@link startEvmDevnet}: which chains (default {@link DEFAULT_EVM_NETWORKS}), how many
 * funded payers (default 3; all but the last approve Permit2) and gas-only relayers (default 4).
 * `forks` run a network as an anvil fork of an RPC instead of a fresh chain (replacing the fresh
 * one of the same network, or added beside them); `placers` put what a fork lacks at its canonical
 * address (default {@link DEFAULT_FORK_PLACERS}). `fund` addresses get what a payer gets on every
 * network: gas, every token and a Permit2 approval.
 */
export type StartEvmDevnetOptions = {
  networks?: readonly EvmNetworkConfig[]
  payers?: number
  relayers?: number
  mining?: EvmMining
  forks?: readonly EvmFork[]
  fund?: readonly `0x${string}`[]
  placers?: readonly EvmPlacer[]
}

/**
 * A running EVM devnet. `owner` deployed and owns every token on every chain (its key can `mint`,
 * `blacklist`, `pause`); `pids` are the anvil process ids by network; `mine` and `setAutomine` steer
 * block production (for tests of pending settlements).
 */
export type EvmDevnet = Devnet & {
  owner: EvmAccount
  pids: Record<string, number>
  mine(parameters: { network: string; blocks?: number }): Promise<void>
  setAutomine(parameters: { network: string; enabled: boolean }): Promise<void>
}

/** What each payer holds of every token, in whole tokens. */
const PAYER_TOKENS = 1_000_000n

type RunningChain = {
  network: DevnetNetwork
  rpc: JsonRpc
  pid: number
  stop(): Promise<void>
  /** Adds `amount` (atomic units) of `token` to `address`'s balance, in storage. */
  addTokens(token: DevnetAsset, address: `0x${string}`, amount: bigint): Promise<void>
}

/**
 * Starts one anvil per network in parallel, with the public testnet's chain id, canonical Permit2, the
 * x402 exact Permit2 proxy, Multicall3, EntryPoint v0.7 and the Safe 1.4.1 / Safe4337Module stack
 * (see `deployErc4337Stack`), the tokens at the testnet's addresses, and funded wallets
 * from anvil's default mnemonic (account 0 is the token owner, then payers, then relayers). A network
 * in `forks` runs as an anvil fork of its RPC instead (docs/fork-testing.md).
 */
export async function startEvmDevnet(options: StartEvmDevnetOptions = {}): Promise<EvmDevnet> {
  const configs = options.networks ?? DEFAULT_EVM_NETWORKS
  const payerCount = options.payers ?? 3
  const relayerCount = options.relayers ?? 4
  const [owner, ...rest] = getAnvilAccounts(1 + payerCount + relayerCount)
  if (!owner) {
    throw new AppError('internal_error', { message: 'devnet: no owner account' })
  }
  const payers = rest.slice(0, payerCount).map((a, i) => ({ ...a, permit2Approved: i < payerCount - 1 }))
  const relayers = rest.slice(payerCount)

  const funded = options.fund ?? []
  const forks = options.forks ?? []
  const accounts = 1 + payerCount + relayerCount
  // A fork takes the place of the fresh chain of its network (same position in the output); forks
  // of other networks come after the fresh ones.
  const plan: (EvmNetworkConfig | EvmFork)[] = [
    ...configs.map((config) => forks.find((fork) => fork.network === config.network) ?? config),
    ...forks.filter((fork) => !configs.some((config) => config.network === fork.network)),
  ]
  const startFresh = async (config: EvmNetworkConfig): Promise<RunningChain> => {
    const anvil = await spawnAnvil({ chainId: config.chainId, accounts, network: config.network })
    const rpc = createJsonRpc(anvil.rpcUrl, config.network)
    try {
      // `--fund` addresses are funded and approved in storage like the payers, in the same batch.
      const holders = [...payers, ...funded.map((address) => ({ address, permit2Approved: true }))]
      await setupEvmFixtures({ rpc, config, owner, payers: holders, payerBalance: PAYER_TOKENS })
      if (funded.length > 0) {
        await rpc.batch(
          funded.map((a) => ({ method: 'anvil_setBalance', params: [a, numberToHex(WALLET_GAS)] })),
        )
      }
      await deployErc4337Stack(rpc, { network: config.network, from: owner.address })
      await applyMining(rpc, options.mining ?? 'auto')
    } catch (error) {
      await anvil.stop()
      throw error
    }
    return {
      ...anvil,
      rpc,
      network: toDevnetNetwork(config, anvil.rpcUrl),
      addTokens: (token, address, amount) => addFixtureTokens(rpc, token, address, amount),
    }
  }
  const startFork = async (fork: EvmFork): Promise<RunningChain> => {
    const chain = await startForkChain({
      fork,
      accounts,
      owner: owner.address,
      payers,
      relayers: relayers.map((r) => r.address),
      funded,
      payerBalance: PAYER_TOKENS,
      placers: options.placers ?? DEFAULT_FORK_PLACERS,
    })
    try {
      await applyMining(chain.rpc, options.mining ?? 'auto')
    } catch (error) {
      await chain.stop()
      throw error
    }
    return {
      ...chain,
      addTokens: (token, address, amount) =>
        chain.balances.add(token.address as `0x${string}`, address, amount),
    }
  }
  const started = await Promise.allSettled(
    plan.map((entry) => ('rpcUrl' in entry ? startFork(entry) : startFresh(entry))),
  )
  const chains = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
  const failure = started.find((r) => r.status === 'rejected')
  if (failure) {
    await Promise.allSettled(chains.map((c) => c.stop()))
    throw failure.reason
  }

  const chainOf = (network: string): RunningChain => {
    const chain = chains.find((c) => c.network.network === network)
    if (!chain) {
      throw new AppError('invalid_network', {
        context: { network },
        message: `devnet: no EVM network ${network}`,
      })
    }
    return chain
  }
  const fundQueues = new Map<string, Promise<unknown>>()
  let stopped: Promise<void> | undefined
  return {
    networks: Object.fromEntries(chains.map((c) => [c.network.network, c.network])),
    wallets: chains.flatMap(({ network: config }) => [
      ...payers.map(
        (p): DevnetWallet => ({
          network: config.network,
          role: 'payer',
          address: p.address,
          privateKey: p.privateKey,
          permit2Approved: p.permit2Approved,
        }),
      ),
      ...relayers.map(
        (r): DevnetWallet => ({
          network: config.network,
          role: 'relayer',
          address: r.address,
          privateKey: r.privateKey,
        }),
      ),
    ]),
    owner,
    pids: Object.fromEntries(chains.map((c) => [c.network.network, c.pid])),
    fund: async (parameters: FundParameters) => {
      const chain = chainOf(parameters.network)
      // Serialized per chain: a token top-up is a read-modify-write of balance and totalSupply.
      const previous = fundQueues.get(parameters.network) ?? Promise.resolve()
      const next = previous.catch(() => undefined).then(() => fundAccount(chain, parameters))
      fundQueues.set(parameters.network, next)
      return next
    },
    mine: async ({ network, blocks = 1 }) => {
      await chainOf(network).rpc.request('anvil_mine', [numberToHex(blocks)])
    },
    setAutomine: async ({ network, enabled }) => {
      await chainOf(network).rpc.request('evm_setAutomine', [enabled])
    },
    stop: () => {
      stopped ??= Promise.allSettled(chains.map((c) => c.stop())).then(() => undefined)
      return stopped
    },
  }
}

async function applyMining(rpc: JsonRpc, mining: EvmMining): Promise<void> {
  if (mining === 'auto') {
    await rpc.request('evm_setAutomine', [true])
  } else if (mining !== 'manual') {
    await rpc.request('evm_setIntervalMining', [mining.blockTime])
  }
}

function toDevnetNetwork(config: EvmNetworkConfig, rpcUrl: string): DevnetNetwork {
  const assets = Object.fromEntries(
    config.tokens.map((token): [string, DevnetAsset] => [
      token.symbol,
      {
        symbol: token.symbol,
        address: token.address,
        decimals: token.decimals,
        ...(token.contract === 'UsdcLike'
          ? { eip712: { name: token.name, version: token.eip712Version ?? '2' } }
          : {}),
        transferMethods: token.transferMethods,
      },
    ]),
  )
  return {
    network: config.network,
    kind: 'evm',
    chainId: config.chainId,
    rpcUrl,
    assets,
    permit2: PERMIT2_ADDRESS,
    x402ExactPermit2Proxy: X402_EXACT_PERMIT2_PROXY_ADDRESS,
    multicall3: MULTICALL3_ADDRESS,
  }
}

// Native coin: anvil_setBalance (sets). Token: adds `amount` to the balance (and, on a fresh chain,
// totalSupply) in storage, so it works in every mining mode and needs no transaction (no Transfer event).
async function fundAccount(chain: RunningChain, { address, asset, amount }: FundParameters) {
  if (!isAddress(address, { strict: false })) {
    throw new AppError('invalid_request', { context: { issues: { address: 'not an EVM address' } } })
  }
  if (asset === undefined) {
    await chain.rpc.request('anvil_setBalance', [address, numberToHex(amount)])
    return
  }
  await chain.addTokens(findToken(chain.network, asset), address, amount)
}

// The fixture tokens keep OpenZeppelin's layout: balance and totalSupply are read, then both written.
async function addFixtureTokens(rpc: JsonRpc, token: DevnetAsset, address: `0x${string}`, amount: bigint) {
  const tokenAddress = token.address as `0x${string}`
  const read = (data: `0x${string}`) => ({
    method: 'eth_call',
    params: [{ to: tokenAddress, data }, 'latest'],
  })
  const [balance, supply] = (await rpc.batch([
    read(encodeFunctionData({ abi: usdtLikeAbi, functionName: 'balanceOf', args: [address] })),
    read(encodeFunctionData({ abi: usdtLikeAbi, functionName: 'totalSupply' })),
  ])) as `0x${string}`[]
  await rpc.batch([
    setBalanceCall(tokenAddress, address, hexToBigInt(balance ?? '0x0') + amount),
    setTotalSupplyCall(tokenAddress, hexToBigInt(supply ?? '0x0') + amount),
  ])
}

function findToken(network: DevnetNetwork, asset: string): DevnetAsset {
  const token = Object.values(network.assets).find(
    (t) => t.symbol === asset || t.address.toLowerCase() === asset.toLowerCase(),
  )
  if (!token) {
    throw new AppError('unknown_asset', { context: { network: network.network, asset } })
  }
  return token
}
