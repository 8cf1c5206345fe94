import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner, toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { ExactEvmScheme as ExactEvmFacilitator } from '@x402/evm/exact/facilitator'
import { createPublicClient, createWalletClient, http, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DevnetNetwork } from '../types.js'
import { usdtLikeAbi } from './abis.js'
import { DEFAULT_EVM_NETWORKS } from './evm-networks.js'
import { type EvmDevnet, startEvmDevnet } from './start-evm-devnet.js'
import { toViemChain } from './to-viem-chain.js'

// The reference x402 implementation (client signs, facilitator verifies with simulation and settles)
// must work against the devnet unchanged: same addresses, ABIs, EIP-712 domains and Multicall3.
let devnet: EvmDevnet

beforeAll(async () => {
  devnet = await startEvmDevnet({
    networks: DEFAULT_EVM_NETWORKS.filter((n) => ['eip155:84532', 'eip155:97'].includes(n.network)),
  })
})

afterAll(async () => {
  await devnet?.stop()
})

function keyOf(network: string, role: 'payer' | 'relayer') {
  return devnet.wallets.find((w) => w.network === network && w.role === role)?.privateKey as `0x${string}`
}

async function payAndSettle(networkId: string, requirements: PaymentRequirements) {
  const network = devnet.networks[networkId] as DevnetNetwork
  const chain = toViemChain(network)
  const publicClient = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
  const client = new ExactEvmClient(
    toClientEvmSigner(privateKeyToAccount(keyOf(networkId, 'payer')), publicClient),
  )
  const partial = await client.createPaymentPayload(2, requirements)
  const payload: PaymentPayload = {
    ...partial,
    accepted: requirements,
    resource: { url: 'http://example.test/paid', description: '', mimeType: '' },
  }
  const relayer = privateKeyToAccount(keyOf(networkId, 'relayer'))
  const wallet = createWalletClient({
    account: relayer,
    chain,
    transport: http(),
    pollingInterval: 50,
  }).extend(publicActions)
  // The reference signer is typed loosely (abi: unknown[]); viem's typed methods take the same objects at runtime.
  type Loose<F extends (args: never) => unknown> = Parameters<F>[0]
  const signer = toFacilitatorEvmSigner({
    address: relayer.address,
    readContract: (args) => wallet.readContract(args as Loose<typeof wallet.readContract>),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Loose<typeof wallet.verifyTypedData>),
    writeContract: (args) => wallet.writeContract(args as Loose<typeof wallet.writeContract>),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    getCode: (args) => wallet.getCode(args),
  })
  const facilitator = new ExactEvmFacilitator(signer)
  const verified = await facilitator.verify(payload, requirements)
  const settled = await facilitator.settle(payload, requirements)
  const balance = await publicClient.readContract({
    address: requirements.asset as `0x${string}`,
    abi: usdtLikeAbi,
    functionName: 'balanceOf',
    args: [requirements.payTo as `0x${string}`],
  })
  return { verified, settled, balance }
}

describe('official @x402/evm against the devnet', () => {
  test('behavior: eip3009 payment on Base Sepolia USDC verifies and settles', async () => {
    const usdc = devnet.networks['eip155:84532']?.assets.USDC
    const payTo = '0x0000000000000000000000000000000000000cc1'
    const result = await payAndSettle('eip155:84532', {
      scheme: 'exact',
      network: 'eip155:84532',
      asset: usdc?.address ?? '',
      amount: '1500',
      payTo,
      maxTimeoutSeconds: 60,
      extra: { ...usdc?.eip712 },
    })
    expect(result.verified).toMatchObject({ isValid: true })
    expect(result.settled).toMatchObject({ success: true, network: 'eip155:84532' })
    expect(result.balance).toBe(1500n)
  })

  test('behavior: permit2 payment on BSC testnet USDT (18 decimals) verifies and settles through the proxy', async () => {
    const usdt = devnet.networks['eip155:97']?.assets.USDT
    const payTo = '0x0000000000000000000000000000000000000cc2'
    const result = await payAndSettle('eip155:97', {
      scheme: 'exact',
      network: 'eip155:97',
      asset: usdt?.address ?? '',
      amount: '2000000000000000000',
      payTo,
      maxTimeoutSeconds: 60,
      extra: { assetTransferMethod: 'permit2' },
    })
    expect(result.verified).toMatchObject({ isValid: true })
    expect(result.settled).toMatchObject({ success: true, network: 'eip155:97' })
    expect(result.balance).toBe(2n * 10n ** 18n)
  })
})
