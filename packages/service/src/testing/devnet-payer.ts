import { type DevnetManifest, toViemChain, usdcLikeAbi } from '@tollgate/devnet'
import { type Address, createPublicClient, createWalletClient, type Hash, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** A funded devnet payer of one EVM network that pays tokens and native coin, each resolving once mined. */
export type DevnetPayer = {
  payToken(symbol: string, to: string, amount: bigint): Promise<Hash>
  payNative(to: string, value: bigint): Promise<Hash>
}

/** The first `payer` wallet of `network` on the devnet (tests and benchmarks of the watchers and sweeps). */
export function createDevnetPayer(devnet: DevnetManifest, network: string): DevnetPayer {
  const wallet = devnet.wallets.find((w) => w.network === network && w.role === 'payer')
  const config = devnet.networks[network]
  if (!wallet || !config) {
    throw new TypeError(`no devnet payer on ${network}`)
  }
  const chain = toViemChain(config)
  const client = createWalletClient({
    account: privateKeyToAccount(wallet.privateKey as Hash),
    chain,
    transport: http(),
  })
  const reader = createPublicClient({ chain, transport: http(), pollingInterval: 10 })
  const mined = async (hash: Hash) => {
    await reader.waitForTransactionReceipt({ hash })
    return hash
  }
  return {
    payToken: async (symbol, to, amount) => {
      const token = config.assets[symbol]?.address as Address
      return mined(
        await client.writeContract({
          address: token,
          abi: usdcLikeAbi,
          functionName: 'transfer',
          args: [to as Address, amount],
        }),
      )
    },
    payNative: async (to, value) => mined(await client.sendTransaction({ to: to as Address, value })),
  }
}
