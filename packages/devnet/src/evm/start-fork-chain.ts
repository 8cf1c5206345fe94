import { DEFAULT_ASSETS, getEvmChainId } from '@tollgate/core'
import { encodeFunctionData, erc20Abi, hexToNumber, maxUint256, numberToHex } from 'viem'
import { createDevnetError } from '../errors.js'
import type { DevnetAsset, DevnetNetwork } from '../types.js'
import { MULTICALL3_ADDRESS, PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from './addresses.js'
import { type AnvilProcess, spawnAnvil } from './anvil-process.js'
import { createTokenBalanceWriter, type TokenBalanceWriter } from './erc20-balance-slot.js'
import { type EvmPlacer, type PlacedContract, sendForkTransaction } from './fork-placers.js'
import { createJsonRpc, type JsonRpc } from './json-rpc.js'
import { readForkAsset } from './read-fork-asset.js'

/** A network to run as an anvil fork of `rpcUrl` (any EVM JSON-RPC: a provider URL, a local node). */
export type EvmFork = { network: `eip155:${number}`; rpcUrl: string }

/** Native coin every wallet and `--fund`ed address holds on a chain: 10,000 (18 decimals). */
export const WALLET_GAS = 10n ** 22n

/** Parameters of {@link startForkChain}. `payerBalance` is in whole tokens; `funded` get what payers get. */
export type StartForkChainParameters = {
  fork: EvmFork
  /** How many accounts of the default mnemonic anvil unlocks (owner, payers, relayers). */
  accounts: number
  owner: `0x${string}`
  payers: { address: `0x${string}`; permit2Approved: boolean }[]
  relayers: `0x${string}`[]
  funded: readonly `0x${string}`[]
  payerBalance: bigint
  placers: readonly EvmPlacer[]
}

/** A running fork: its anvil, JSON-RPC, manifest entry and the balance writer for its real tokens. */
export type ForkChain = AnvilProcess & { rpc: JsonRpc; network: DevnetNetwork; balances: TokenBalanceWriter }

/**
 * Starts anvil as a fork of `fork.rpcUrl` (which must serve the network's chain id) and makes it a
 * devnet chain without touching the upstream: what the fork lacks of the placers' contracts is
 * placed, the registry's tokens for the network are used where they are (decimals and EIP-712
 * domain read from them), the wallets get gas and tokens written into the tokens' balance storage,
 * and Permit2 approvals are sent as transactions on the fork.
 */
export async function startForkChain(parameters: StartForkChainParameters): Promise<ForkChain> {
  const { fork } = parameters
  const chainId = getEvmChainId(fork.network)
  const anvil = await spawnAnvil({
    chainId,
    accounts: parameters.accounts,
    network: fork.network,
    forkUrl: fork.rpcUrl,
  })
  const rpc = createJsonRpc(anvil.rpcUrl, fork.network)
  try {
    const served = hexToNumber(await rpc.request<`0x${string}`>('eth_chainId'))
    if (served !== chainId) {
      throw createDevnetError(`${fork.network}: the fork RPC serves chain id ${served}, not ${chainId}`, {
        network: fork.network,
      })
    }
    const blockNumber = hexToNumber(await rpc.request<`0x${string}`>('eth_blockNumber'))
    const holders = [...parameters.payers.map((p) => p.address), ...parameters.funded]
    const devAccounts = [parameters.owner, ...parameters.payers.map((p) => p.address), ...parameters.relayers]
    // Every wallet holds exactly WALLET_GAS once the fork is ready (given again after the approvals).
    const giveGas = () =>
      rpc.batch(
        [...devAccounts, ...parameters.funded].map((address) => ({
          method: 'anvil_setBalance',
          params: [address, numberToHex(WALLET_GAS)],
        })),
      )
    // The default mnemonic's keys are public: on real chains their accounts carry EIP-7702
    // delegations to sweepers, which would turn their signatures into ERC-1271 calls. Plain EOAs here.
    await rpc.batch(devAccounts.map((address) => ({ method: 'anvil_setCode', params: [address, '0x'] })))
    await giveGas()
    const contracts: PlacedContract[] = []
    for (const placer of parameters.placers) {
      const context = { network: fork.network, chainId, rpcUrl: anvil.rpcUrl, rpc, sender: parameters.owner }
      contracts.push(...(await placer.place(context)))
    }
    const registered = DEFAULT_ASSETS.filter((asset) => asset.network === fork.network)
    const assets = await Promise.all(registered.map((asset) => readForkAsset(rpc, asset)))
    const balances = createTokenBalanceWriter(rpc)
    for (const asset of assets) {
      const amount = parameters.payerBalance * 10n ** BigInt(asset.decimals)
      for (const holder of holders) {
        await balances.set(asset.address as `0x${string}`, holder, amount)
      }
    }
    await Promise.all([
      ...parameters.payers
        .filter((p) => p.permit2Approved)
        .map((p) => approvePermit2(rpc, fork.network, { owner: p.address, impersonate: false }, assets)),
      ...parameters.funded.map((owner) =>
        approvePermit2(rpc, fork.network, { owner, impersonate: true }, assets),
      ),
    ])
    await giveGas()
    const network: DevnetNetwork = {
      network: fork.network,
      kind: 'evm',
      chainId,
      rpcUrl: anvil.rpcUrl,
      assets: Object.fromEntries(assets.map((asset) => [asset.symbol, asset])),
      permit2: PERMIT2_ADDRESS,
      x402ExactPermit2Proxy: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      multicall3: MULTICALL3_ADDRESS,
      fork: { blockNumber, contracts },
    }
    return { ...anvil, rpc, network, balances }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}

// A max ERC-20 approval to Permit2 for every Permit2 asset, sent as `owner` on the fork (an unlocked
// dev account, or any address impersonated): the allowance storage layout is never probed.
async function approvePermit2(
  rpc: JsonRpc,
  network: string,
  { owner, impersonate }: { owner: `0x${string}`; impersonate: boolean },
  assets: DevnetAsset[],
): Promise<void> {
  const data = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, maxUint256],
  })
  if (impersonate) {
    await rpc.request('anvil_impersonateAccount', [owner])
  }
  try {
    for (const asset of assets.filter((a) => a.transferMethods.includes('permit2'))) {
      await sendForkTransaction(rpc, network, { from: owner, to: asset.address as `0x${string}`, data })
    }
  } finally {
    if (impersonate) {
      await rpc.request('anvil_stopImpersonatingAccount', [owner])
    }
  }
}
