import { type DevnetManifest, toViemChain, usdcLikeAbi } from '@tollgate/devnet'
import { type Address, createPublicClient, createWalletClient, type Hash, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/**
 * A funded devnet payer of one EVM network that pays tokens and native coin, each resolving once
 * mined and rejecting when the payment reverted.
 */
export type DevnetPayer = {
  payToken(symbol: string, to: string, amount: bigint): Promise<Hash>
  payNative(to: string, value: bigint): Promise<Hash>
}

// Gas headroom of a token payment for a recipient whose balance is emptied before it is mined.
const sweptRecipientGas = 25_000n

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
  // A reverted payment rejects: a caller waiting for the deposit to be recorded would wait forever.
  const mined = async (hash: Hash) => {
    const receipt = await reader.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') {
      throw new Error(`devnet payment ${hash} reverted (gas used ${receipt.gasUsed})`)
    }
    return hash
  }
  return {
    payToken: async (symbol, to, amount) => {
      const request = {
        address: config.assets[symbol]?.address as Address,
        abi: usdcLikeAbi,
        functionName: 'transfer',
        args: [to as Address, amount],
      } as const
      // The estimate is for the recipient's balance now. A sweep of the recipient mined before the
      // payment empties it, and writing a zero balance costs about 17,000 gas more (EIP-2929/3529
      // SSTORE): without headroom the payment runs out of gas and reverts.
      const gas = await reader.estimateContractGas({ ...request, account: client.account })
      return mined(await client.writeContract({ ...request, gas: gas + sweptRecipientGas }))
    },
    payNative: async (to, value) => mined(await client.sendTransaction({ to: to as Address, value })),
  }
}
