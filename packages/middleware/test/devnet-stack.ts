import { createRpcBalanceReader } from '@tollgate/agent'
import { createAssetRegistry, SOLANA_DEVNET } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet } from '@tollgate/devnet'
import { createEip3009Server, createPermit2Server } from '@tollgate/evm'
import type { Facilitator } from '@tollgate/facilitator'
import { createDevnetFacilitator, getDevnetAssets } from '@tollgate/facilitator/devnet'
import { createSolanaServer } from '@tollgate/svm'
import { getAddress } from 'viem'

// e2e support: a devnet, our facilitator in-process on it, and helpers to read balances.

export const MERCHANT_EVM = getAddress('0x00000000000000000000000000000000000c0ffe')
export const schemes = [createEip3009Server(), createPermit2Server(), createSolanaServer()]

export type DevnetStack = Awaited<ReturnType<typeof startDevnetStack>>

/** Starts the devnet (Base Sepolia, BSC testnet and, with `solana`, Solana) and our facilitator. */
export async function startDevnetStack(options: { solana?: boolean } = {}) {
  const devnet: LocalDevnet = await startDevnet({
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => ['eip155:84532', 'eip155:97'].includes(n.network)) },
    solana: options.solana ? {} : false,
  })
  const { facilitator, close } = await createDevnetFacilitator(devnet)
  const rpcs = Object.fromEntries(Object.values(devnet.networks).map((n) => [n.network, n.rpcUrl]))
  const reader = createRpcBalanceReader({ rpcs })
  const assets = createAssetRegistry(getDevnetAssets(devnet))
  const payer = (network: string, index = 0) => {
    const wallet = devnet.wallets.filter((w) => w.network === network && w.role === 'payer')[index]
    if (!wallet) {
      throw new Error(`no payer ${index} on ${network}`)
    }
    return wallet
  }
  const balanceOf = async (network: string, symbol: string, owner: string): Promise<bigint> => {
    const asset = assets.get(network, symbol)
    return (await reader.getBalance({ network, asset: asset.address, owner })) ?? 0n
  }
  return {
    devnet,
    facilitator: facilitator as Facilitator,
    assets,
    rpcs,
    payer,
    balanceOf,
    /** A Solana merchant wallet: the second devnet payer (it already has token accounts). */
    merchantSolana: () => payer(SOLANA_DEVNET, 1).address,
    async stop() {
      close()
      await devnet.stop()
    },
  }
}
