import { type Asset, createAssetRegistry } from '@tollgate/core'
import {
  DEFAULT_EVM_NETWORKS,
  type LocalDevnet,
  startDevnet,
  toViemChain,
  usdcLikeAbi,
} from '@tollgate/devnet'
import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  http,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { createRelayer, type RelayerOptions } from '../relayer/create-relayer.js'

// e2e support (exported as @tollgate/evm/testing): one anvil devnet with viem clients, relayer keys and the devnet's
// tokens registered as the allowlist.

/** A running EVM devnet for the e2e tests of this package. */
export type EvmHarness = Awaited<ReturnType<typeof startEvmHarness>>

/** Starts anvil for `networks` (default Base Sepolia) and builds clients, accounts and the asset allowlist. */
export async function startEvmHarness(networks: string[] = ['eip155:84532']) {
  const devnet: LocalDevnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => networks.includes(n.network)) },
  })
  const evm = devnet.evm
  if (!evm) {
    throw new Error('devnet without EVM')
  }
  const clients: Record<string, PublicClient> = {}
  const extra: Asset[] = []
  for (const net of Object.values(devnet.networks)) {
    clients[net.network] = createPublicClient({
      chain: toViemChain(net),
      transport: http(),
      pollingInterval: 50,
    })
    for (const asset of Object.values(net.assets)) {
      extra.push({ ...asset, network: net.network as Asset['network'] })
    }
  }
  const accountsOf = (network: string, role: 'payer' | 'relayer'): PrivateKeyAccount[] =>
    devnet.wallets
      .filter((w) => w.network === network && w.role === role)
      .map((w) => privateKeyToAccount(w.privateKey as `0x${string}`))
  const clientOf = (network: string): PublicClient => {
    const client = clients[network]
    if (!client) {
      throw new Error(`no client for ${network}`)
    }
    return client
  }
  const walletOf = (
    network: string,
    account: PrivateKeyAccount,
  ): WalletClient<Transport, Chain, PrivateKeyAccount> => {
    const net = devnet.networks[network]
    if (!net) {
      throw new Error(`no network ${network}`)
    }
    return createWalletClient({ account, chain: toViemChain(net), transport: http() })
  }
  return {
    devnet,
    evm,
    assets: createAssetRegistry(extra),
    clientOf,
    walletOf,
    payers: (network: string) => accountsOf(network, 'payer'),
    relayerAccounts: (network: string) => accountsOf(network, 'relayer'),
    assetOf: (network: string, symbol: string): Address => {
      const asset = devnet.networks[network]?.assets[symbol]
      if (!asset) {
        throw new Error(`no ${symbol} on ${network}`)
      }
      return asset.address as Address
    },
    createRelayer: (network: string, options: Partial<RelayerOptions> = {}) =>
      createRelayer({
        network,
        client: clientOf(network),
        accounts: accountsOf(network, 'relayer'),
        pollingIntervalMs: 50,
        ...options,
      }),
    balanceOf: (network: string, token: Address, owner: Address) =>
      clientOf(network).readContract({
        address: token,
        abi: usdcLikeAbi,
        functionName: 'balanceOf',
        args: [owner],
      }),
    /** Token owner action (mint/blacklist/pause) on `token`. */
    async ownerCall(
      network: string,
      token: Address,
      functionName: 'blacklist' | 'unBlacklist',
      account: Address,
    ) {
      const wallet = walletOf(network, privateKeyToAccount(evm.owner.privateKey as `0x${string}`))
      const hash = await wallet.writeContract({
        address: token,
        abi: usdcLikeAbi,
        functionName,
        args: [account],
      })
      await clientOf(network).waitForTransactionReceipt({ hash })
    },
    stop: () => devnet.stop(),
  }
}
