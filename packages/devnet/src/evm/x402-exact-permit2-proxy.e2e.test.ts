import {
  createPublicClient,
  createWalletClient,
  http,
  type PrivateKeyAccount,
  type PublicClient,
  parseSignature,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DevnetNetwork } from '../types.js'
import { permit2Abi, usdcLikeAbi, usdtLikeAbi, x402ExactPermit2ProxyAbi } from './abis.js'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from './addresses.js'
import { DEFAULT_EVM_NETWORKS } from './evm-networks.js'
import { type EvmDevnet, startEvmDevnet } from './start-evm-devnet.js'
import { toViemChain } from './to-viem-chain.js'

// x402 `exact` over Permit2: the payer signs a PermitWitnessTransferFrom naming the proxy as spender
// and a witness {to, validAfter}; a relayer calls proxy.settle. Proxy and Permit2 errors decode
// together when both ABIs are passed.
const BSC = 'eip155:97'
const BASE = 'eip155:84532'
const proxyAndPermit2Abi = [...x402ExactPermit2ProxyAbi, ...permit2Abi]
const witnessTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const
const merchant: `0x${string}` = '0x00000000000000000000000000000000000000bb'

let devnet: EvmDevnet
const clients: Record<string, { client: PublicClient; relayer: ReturnType<typeof walletFor> }> = {}
let nonce = 1n

beforeAll(async () => {
  devnet = await startEvmDevnet({
    networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network !== 'eip155:421614'),
  })
  for (const network of Object.values(devnet.networks)) {
    const relayerKey = devnet.wallets.find((w) => w.role === 'relayer')?.privateKey as `0x${string}`
    clients[network.network] = {
      client: createPublicClient({ chain: toViemChain(network), transport: http(), pollingInterval: 50 }),
      relayer: walletFor(network, relayerKey),
    }
  }
})

afterAll(async () => {
  await devnet?.stop()
})

function walletFor(network: DevnetNetwork, privateKey: `0x${string}`) {
  return createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain: toViemChain(network),
    transport: http(),
  })
}

const on = (network: string) => {
  const c = clients[network]
  const net = devnet.networks[network] as DevnetNetwork
  return { ...(c as NonNullable<typeof c>), net }
}
const payer = (index: number) =>
  privateKeyToAccount(devnet.wallets.filter((w) => w.role === 'payer')[index]?.privateKey as `0x${string}`)

async function signPermit(
  network: string,
  signer: PrivateKeyAccount,
  token: `0x${string}`,
  amount: bigint,
  overrides: { validAfter?: bigint } = {},
) {
  const permit = {
    permitted: { token, amount },
    nonce: nonce++,
    deadline: BigInt(Math.floor(Date.now() / 1000) + 300),
  }
  const witness = { to: merchant, validAfter: overrides.validAfter ?? 0n } as const
  const signature = await signer.signTypedData({
    domain: {
      name: 'Permit2',
      chainId: on(network).net.chainId as number,
      verifyingContract: PERMIT2_ADDRESS,
    },
    types: witnessTypes,
    primaryType: 'PermitWitnessTransferFrom',
    message: { ...permit, spender: X402_EXACT_PERMIT2_PROXY_ADDRESS, witness },
  })
  return { args: [permit, signer.address, witness, signature] as const }
}

const balanceOf = (network: string, token: `0x${string}`, owner: `0x${string}`) =>
  on(network).client.readContract({
    address: token,
    abi: usdtLikeAbi,
    functionName: 'balanceOf',
    args: [owner],
  })

describe('X402ExactPermit2Proxy on the devnet', () => {
  test('default: settle moves the signed amount from an approved payer to the witness recipient', async () => {
    const { client, relayer, net } = on(BSC)
    const usdt = net.assets.USDT?.address as `0x${string}`
    const amount = 25n * 10n ** 17n
    const { args } = await signPermit(BSC, payer(0), usdt, amount)
    const [payerBefore, merchantBefore] = [
      await balanceOf(BSC, usdt, payer(0).address),
      await balanceOf(BSC, usdt, merchant),
    ]
    const hash = await relayer.writeContract({
      address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      abi: x402ExactPermit2ProxyAbi,
      functionName: 'settle',
      args,
    })
    const receipt = await client.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(await balanceOf(BSC, usdt, payer(0).address)).toBe(payerBefore - amount)
    expect(await balanceOf(BSC, usdt, merchant)).toBe(merchantBefore + amount)
    const settled = receipt.logs.filter((l) => l.address === X402_EXACT_PERMIT2_PROXY_ADDRESS.toLowerCase())
    expect(settled).toHaveLength(1)

    // The same Permit2 nonce cannot be spent twice.
    await expect(
      client.simulateContract({
        address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        abi: proxyAndPermit2Abi,
        functionName: 'settle',
        args,
        account: relayer.account,
      }),
    ).rejects.toThrow('InvalidNonce')
  })

  test('behavior: a payer without a Permit2 approval cannot settle', async () => {
    const { client, relayer, net } = on(BSC)
    const usdt = net.assets.USDT?.address as `0x${string}`
    const { args } = await signPermit(BSC, payer(2), usdt, 1n)
    await expect(
      client.simulateContract({
        address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        abi: proxyAndPermit2Abi,
        functionName: 'settle',
        args,
        account: relayer.account,
      }),
    ).rejects.toThrow('TRANSFER_FROM_FAILED')
  })

  test('behavior: proxy checks revert with their custom errors', async () => {
    const { client, relayer, net } = on(BSC)
    const usdt = net.assets.USDT?.address as `0x${string}`
    const simulate = (args: Awaited<ReturnType<typeof signPermit>>['args']) =>
      client.simulateContract({
        address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        abi: proxyAndPermit2Abi,
        functionName: 'settle',
        args,
        account: relayer.account,
      })
    const early = await signPermit(BSC, payer(0), usdt, 1n, { validAfter: 2n ** 40n })
    await expect(simulate(early.args)).rejects.toThrow('PaymentTooEarly')
    const zero = await signPermit(BSC, payer(0), usdt, 0n)
    await expect(simulate(zero.args)).rejects.toThrow('InvalidAmount')
    const [permit, owner, witness, signature] = (await signPermit(BSC, payer(0), usdt, 1n)).args
    const tampered = { ...permit, permitted: { ...permit.permitted, amount: 2n } }
    await expect(simulate([tampered, owner, witness, signature])).rejects.toThrow('InvalidSigner')
  })

  test('behavior: settleWithPermit lets a payer without approval pay with an EIP-2612 permit to Permit2', async () => {
    const { client, relayer, net } = on(BASE)
    const usdc = net.assets.USDC?.address as `0x${string}`
    const owner = payer(2)
    const amount = 3_000_000n
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 300)
    const permitSignature = await owner.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: net.chainId as number, verifyingContract: usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: owner.address, spender: PERMIT2_ADDRESS, value: amount, nonce: 0n, deadline },
    })
    const { r, s, v } = parseSignature(permitSignature)
    const { args } = await signPermit(BASE, owner, usdc, amount)
    const before = await balanceOf(BASE, usdc, merchant)
    const mismatch = { value: amount + 1n, deadline, r, s, v: Number(v) }
    await expect(
      client.simulateContract({
        address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        abi: x402ExactPermit2ProxyAbi,
        functionName: 'settleWithPermit',
        args: [mismatch, ...args],
        account: relayer.account,
      }),
    ).rejects.toThrow('Permit2612AmountMismatch')
    const hash = await relayer.writeContract({
      address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      abi: x402ExactPermit2ProxyAbi,
      functionName: 'settleWithPermit',
      args: [{ value: amount, deadline, r, s, v: Number(v) }, ...args],
    })
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await balanceOf(BASE, usdc, merchant)).toBe(before + amount)
    const allowance = await client.readContract({
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'allowance',
      args: [owner.address, PERMIT2_ADDRESS],
    })
    expect(allowance).toBe(0n)
  })

  test("behavior: a blacklisted payer's settlement is mined and reported as reverted", async () => {
    const { client, relayer, net } = on(BSC)
    const usdt = net.assets.USDT?.address as `0x${string}`
    const owner = walletFor(net, devnet.owner.privateKey)
    const setBlacklisted = async (functionName: 'blacklist' | 'unBlacklist') => {
      const hash = await owner.writeContract({
        address: usdt,
        abi: usdtLikeAbi,
        functionName,
        args: [payer(1).address],
      })
      await client.waitForTransactionReceipt({ hash })
    }
    await setBlacklisted('blacklist')
    try {
      const { args } = await signPermit(BSC, payer(1), usdt, 1n)
      const hash = await relayer.writeContract({
        address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        abi: x402ExactPermit2ProxyAbi,
        functionName: 'settle',
        args,
        gas: 300_000n,
      })
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('reverted')
    } finally {
      await setBlacklisted('unBlacklist')
    }
  })
})
