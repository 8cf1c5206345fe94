import { AppError } from '@tollgate/core'
import { encodeFunctionData, hexToBigInt, isAddress, numberToHex } from 'viem'
import type { Devnet, DevnetAsset, DevnetNetwork, DevnetWallet, FundParameters } from '../types.js'
import { usdtLikeAbi } from './abis.js'
import { MULTICALL3_ADDRESS, PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from './addresses.js'
import { spawnAnvil } from './anvil-process.js'
import { type EvmAccount, getAnvilAccounts } from './dev-accounts.js'
import { setBalanceCall, setTotalSupplyCall } from './erc20-storage.js'
import { deployErc4337Stack } from './erc4337/deploy-erc4337-stack.js'
import { DEFAULT_EVM_NETWORKS, type EvmNetworkConfig, type EvmTokenConfig } from './evm-networks.js'
import { createJsonRpc, type JsonRpc } from './json-rpc.js'
import { setupEvmFixtures } from './setup-evm-fixtures.js'

/** How blocks get made after setup: on every transaction (default), only on `mine()`, or every `blockTime` seconds. */
export type EvmMining = 'auto' | 'manual' | { blockTime: number }

/**
 * Options of {@link startEvmDevnet}: which chains (default {@link DEFAULT_EVM_NETWORKS}), how many
 * funded payers (default 3; all but the last approve Permit2) and gas-only relayers (default 4).
 */
export type StartEvmDevnetOptions = {
  networks?: readonly EvmNetworkConfig[]
  payers?: number
  relayers?: number
  mining?: EvmMining
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
  config: EvmNetworkConfig
  rpc: JsonRpc
  pid: number
  rpcUrl: string
  stop(): Promise<void>
}

/**
 * Starts one anvil per network in parallel, with the public testnet's chain id, canonical Permit2, the
 * x402 exact Permit2 proxy, Multicall3, EntryPoint v0.7 and the Safe 1.4.1 / Safe4337Module stack
 * (see `deployErc4337Stack`), the tokens at the testnet's addresses, and funded wallets
 * from anvil's default mnemonic (account 0 is the token owner, then payers, then relayers).
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

  const started = await Promise.allSettled(
    configs.map(async (config): Promise<RunningChain> => {
      const anvil = await spawnAnvil({
        chainId: config.chainId,
        accounts: 1 + payerCount + relayerCount,
        network: config.network,
      })
      const rpc = createJsonRpc(anvil.rpcUrl, config.network)
      try {
        await setupEvmFixtures({ rpc, config, owner, payers, payerBalance: PAYER_TOKENS })
        await deployErc4337Stack(rpc, { network: config.network, from: owner.address })
        await applyMining(rpc, options.mining ?? 'auto')
      } catch (error) {
        await anvil.stop()
        throw error
      }
      return { config, rpc, ...anvil }
    }),
  )
  const chains = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
  const failure = started.find((r) => r.status === 'rejected')
  if (failure) {
    await Promise.allSettled(chains.map((c) => c.stop()))
    throw failure.reason
  }

  const chainOf = (network: string): RunningChain => {
    const chain = chains.find((c) => c.config.network === network)
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
    networks: Object.fromEntries(chains.map((c) => [c.config.network, toDevnetNetwork(c)])),
    wallets: chains.flatMap(({ config }) => [
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
    pids: Object.fromEntries(chains.map((c) => [c.config.network, c.pid])),
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

function toDevnetNetwork({ config, rpcUrl }: RunningChain): DevnetNetwork {
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

// Native coin: anvil_setBalance (sets). Token: adds `amount` to the balance and totalSupply slots, so it
// works in every mining mode and needs no transaction (no Transfer event is emitted).
async function fundAccount({ config, rpc }: RunningChain, { address, asset, amount }: FundParameters) {
  if (!isAddress(address, { strict: false })) {
    throw new AppError('invalid_request', { context: { issues: { address: 'not an EVM address' } } })
  }
  if (asset === undefined) {
    await rpc.request('anvil_setBalance', [address, numberToHex(amount)])
    return
  }
  const token = findToken(config, asset)
  const read = (data: `0x${string}`) => ({
    method: 'eth_call',
    params: [{ to: token.address, data }, 'latest'],
  })
  const [balance, supply] = (await rpc.batch([
    read(encodeFunctionData({ abi: usdtLikeAbi, functionName: 'balanceOf', args: [address] })),
    read(encodeFunctionData({ abi: usdtLikeAbi, functionName: 'totalSupply' })),
  ])) as `0x${string}`[]
  await rpc.batch([
    setBalanceCall(token.address, address, hexToBigInt(balance ?? '0x0') + amount),
    setTotalSupplyCall(token.address, hexToBigInt(supply ?? '0x0') + amount),
  ])
}

function findToken(config: EvmNetworkConfig, asset: string): EvmTokenConfig {
  const token = config.tokens.find(
    (t) => t.symbol === asset || t.address.toLowerCase() === asset.toLowerCase(),
  )
  if (!token) {
    throw new AppError('unknown_asset', { context: { network: config.network, asset } })
  }
  return token
}
