import { createKeyPairSignerFromBytes, generateKeyPairSigner, getBase58Encoder } from '@solana/kit'
import { SOLANA_DEVNET } from '@tollgate/core'
import {
  DEFAULT_EVM_NETWORKS,
  type DevnetNetwork,
  type LocalDevnet,
  startDevnet,
  toViemChain,
} from '@tollgate/devnet'
import { HTTPFacilitatorClient } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { ExactSvmScheme as ExactSvmClient } from '@x402/svm/exact/client'
import { type Address, createPublicClient, erc20Abi, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { exact } from 'x402/schemes'
import { useFacilitator } from 'x402/verify'
import { startDevnetFacilitator } from './devnet-facilitator.js'

// Interop: the reference SDK's clients, unchanged, against our facilitator's HTTP API.
const BASE = 'eip155:84532'
const BSC = 'eip155:97'

let devnet: LocalDevnet
let facilitator: Awaited<ReturnType<typeof startDevnetFacilitator>>

beforeAll(async () => {
  devnet = await startDevnet({
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => ['eip155:84532', 'eip155:97'].includes(n.network)) },
    solana: { payers: 1, relayers: 1 },
  })
  facilitator = await startDevnetFacilitator(devnet)
}, 180_000)

afterAll(async () => {
  await facilitator?.stop()
  await devnet?.stop()
})

const network = (id: string) => devnet.networks[id] as DevnetNetwork
const payerKey = (id: string) =>
  devnet.wallets.find((w) => w.network === id && w.role === 'payer')?.privateKey ?? ''
const auth = () => ({ Authorization: `Bearer ${facilitator.token}` })

function createOfficialClient(): HTTPFacilitatorClient {
  return new HTTPFacilitatorClient({
    url: facilitator.url,
    createAuthHeaders: async () => ({ verify: auth(), settle: auth(), supported: auth() }),
  })
}

async function signWithOfficialEvmClient(requirements: PaymentRequirements): Promise<PaymentPayload> {
  const publicClient = createPublicClient({
    chain: toViemChain(network(requirements.network)),
    transport: http(),
    pollingInterval: 50,
  })
  const client = new ExactEvmClient(
    toClientEvmSigner(privateKeyToAccount(payerKey(requirements.network) as Hex), publicClient),
  )
  const partial = await client.createPaymentPayload(2, requirements)
  return {
    ...partial,
    accepted: requirements,
    resource: { url: 'http://merchant.test/paid', description: '', mimeType: '' },
  }
}

async function balanceOf(id: string, symbol: string, owner: string): Promise<bigint> {
  const client = createPublicClient({
    chain: toViemChain(network(id)),
    transport: http(),
    pollingInterval: 50,
  })
  return client.readContract({
    address: network(id).assets[symbol]?.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner as Address],
  })
}

const newAddress = () => privateKeyToAccount(generatePrivateKey()).address

describe('@x402/core HTTPFacilitatorClient against our facilitator', () => {
  test('default: getSupported, verify and settle an @x402/evm eip3009 payment', async () => {
    const client = createOfficialClient()
    const supported = await client.getSupported()
    expect(supported.kinds).toContainEqual({ x402Version: 2, scheme: 'exact', network: BASE })
    const payTo = newAddress()
    const usdc = network(BASE).assets.USDC
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: BASE,
      asset: usdc?.address ?? '',
      amount: '4321',
      payTo,
      maxTimeoutSeconds: 120,
      extra: { ...usdc?.eip712 },
    }
    const payload = await signWithOfficialEvmClient(requirements)
    expect(await client.verify(payload, requirements)).toMatchObject({ isValid: true })
    const settled = await client.settle(payload, requirements)
    expect(settled).toMatchObject({ success: true, network: BASE, transaction: expect.stringMatching(/^0x/) })
    expect(await balanceOf(BASE, 'USDC', payTo)).toBe(4321n)
  })

  test('behavior: an @x402/evm permit2 payment settles', async () => {
    const client = createOfficialClient()
    const payTo = newAddress()
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: BSC,
      asset: network(BSC).assets.USDT?.address ?? '',
      amount: '5000000000000000000',
      payTo,
      maxTimeoutSeconds: 120,
      extra: { assetTransferMethod: 'permit2' },
    }
    const payload = await signWithOfficialEvmClient(requirements)
    expect(await client.verify(payload, requirements)).toMatchObject({ isValid: true })
    expect(await client.settle(payload, requirements)).toMatchObject({ success: true, network: BSC })
    expect(await balanceOf(BSC, 'USDT', payTo)).toBe(5n * 10n ** 18n)
  })

  test('behavior: an @x402/svm payment settles with our fee payer', async () => {
    const client = createOfficialClient()
    const kind = (await client.getSupported()).kinds.find(
      (k) => k.network === SOLANA_DEVNET && k.x402Version === 2,
    )
    const payer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(payerKey(SOLANA_DEVNET)))
    const payTo = (await generateKeyPairSigner()).address
    await devnet.fund({ network: SOLANA_DEVNET, address: payTo, asset: 'USDC', amount: 0n })
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: SOLANA_DEVNET,
      asset: network(SOLANA_DEVNET).assets.USDC?.address ?? '',
      amount: '2500',
      payTo,
      maxTimeoutSeconds: 60,
      extra: { feePayer: kind?.extra?.feePayer },
    }
    const svmClient = new ExactSvmClient(payer, { rpcUrl: network(SOLANA_DEVNET).rpcUrl })
    const partial = await svmClient.createPaymentPayload(2, requirements)
    const payload: PaymentPayload = {
      ...partial,
      accepted: requirements,
      resource: { url: 'http://m.test/p' },
    }
    expect(await client.verify(payload, requirements)).toMatchObject({ isValid: true, payer: payer.address })
    expect(await client.settle(payload, requirements)).toMatchObject({ success: true, payer: payer.address })
  })

  test('behavior: an invalid payment comes back as data, not an error', async () => {
    const client = createOfficialClient()
    const usdc = network(BASE).assets.USDC
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: BASE,
      asset: usdc?.address ?? '',
      amount: '100',
      payTo: newAddress(),
      maxTimeoutSeconds: 120,
      extra: { ...usdc?.eip712 },
    }
    const payload = await signWithOfficialEvmClient(requirements)
    const other = { ...requirements, payTo: newAddress() }
    const answer = await client.verify({ ...payload, accepted: other }, other)
    expect(answer.isValid).toBe(false)
    expect(answer.invalidReason).toEqual(expect.any(String))
  })
})

describe('legacy x402 1.x useFacilitator against our facilitator', () => {
  test('default: verify and settle a v1 payload made by x402 exact.evm', async () => {
    const { verify, settle, supported } = useFacilitator({
      url: facilitator.url as `${string}://${string}`,
      createAuthHeaders: async () => ({ verify: auth(), settle: auth(), supported: auth() }),
    })
    expect((await supported()).kinds).toContainEqual({
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
    })
    const payTo = newAddress()
    const usdc = network(BASE).assets.USDC
    const requirements = {
      scheme: 'exact' as const,
      network: 'base-sepolia' as const,
      maxAmountRequired: '6000',
      resource: 'http://merchant.test/paid' as const,
      description: 'paid',
      mimeType: 'application/json',
      payTo: payTo as Address,
      maxTimeoutSeconds: 120,
      asset: (usdc?.address ?? '') as Address,
      extra: { ...usdc?.eip712 },
    }
    const account = privateKeyToAccount(payerKey(BASE) as Hex)
    const payment = await exact.evm.createPayment(
      account as unknown as Parameters<typeof exact.evm.createPayment>[0],
      1,
      requirements,
    )
    expect(payment).toMatchObject({ x402Version: 1, network: 'base-sepolia' })
    expect(await verify(payment, requirements)).toMatchObject({ isValid: true })
    expect(await settle(payment, requirements)).toMatchObject({
      success: true,
      transaction: expect.stringMatching(/^0x/),
    })
    expect(await balanceOf(BASE, 'USDC', payTo)).toBe(6000n)
  })
})
