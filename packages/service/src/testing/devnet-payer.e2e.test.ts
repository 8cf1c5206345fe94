import {
  DEFAULT_EVM_NETWORKS,
  type LocalDevnet,
  startDevnet,
  toViemChain,
  usdcLikeAbi,
} from '@tollgate/devnet'
import { type Address, createPublicClient, createWalletClient, http, parseGwei } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDevnetPayer } from './devnet-payer.js'

const BASE = 'eip155:84532'
let devnet: LocalDevnet

beforeAll(async () => {
  devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
})
afterAll(async () => {
  await devnet?.stop()
})

// The inbound benchmark hung when a deposit was paid to a static deposit address whose previous
// deposit's sweep was mined between the payment's gas estimate and the payment: the payment ran out
// of gas writing the emptied balance, reverted, and was waited for as if mined.
test('behavior: a token payment to an address swept between its gas estimate and its block lands', async () => {
  const config = devnet.networks[BASE]
  const from = devnet.wallets.find((w) => w.network === BASE && w.role === 'payer')?.address as Address
  const usdc = config?.assets.USDC?.address as Address
  if (!config || !from || !usdc) {
    throw new Error('no base devnet')
  }
  const chain = toViemChain(config)
  const reader = createPublicClient({ chain, transport: http() })
  const payer = createDevnetPayer(devnet, BASE)
  const deposit = privateKeyToAccount(generatePrivateKey())
  const sweeper = createWalletClient({ account: deposit, chain, transport: http() })
  await payer.payNative(deposit.address, 10n ** 16n)
  await payer.payToken('USDC', deposit.address, 1_000_000n)
  const balance = () =>
    reader.readContract({
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'balanceOf',
      args: [deposit.address],
    })

  await devnet.evm?.setAutomine({ network: BASE, enabled: false })
  try {
    // The payment is estimated and sent while the address still holds the previous deposit...
    const paid = payer.payToken('USDC', deposit.address, 1_000_000n)
    const mined = await reader.getTransactionCount({ address: from })
    while ((await reader.getTransactionCount({ address: from, blockTag: 'pending' })) === mined) {
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    // ...and the sweep of that deposit (a higher tip) goes first in the same block.
    const sweep = await sweeper.writeContract({
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'transfer',
      args: [from, 1_000_000n],
      gas: 100_000n,
      maxPriorityFeePerGas: parseGwei('50'),
      maxFeePerGas: parseGwei('100'),
    })
    await devnet.evm?.mine({ network: BASE, blocks: 1 })
    const hash = await paid
    const [sweepReceipt, paidReceipt] = await Promise.all([
      reader.getTransactionReceipt({ hash: sweep }),
      reader.getTransactionReceipt({ hash }),
    ])
    expect(sweepReceipt.blockNumber).toBe(paidReceipt.blockNumber)
    expect(sweepReceipt.transactionIndex).toBeLessThan(paidReceipt.transactionIndex)
    expect(paidReceipt.status).toBe('success')
    expect(await balance()).toBe(1_000_000n)
  } finally {
    await devnet.evm?.setAutomine({ network: BASE, enabled: true })
  }
})
