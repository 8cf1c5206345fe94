import {
  createSafeAccount,
  getPaymentReceipt,
  getPaymentRecord,
  parsePaymentRequired,
  runCli,
  wrapFetch,
} from '@tollgate/agent'
import {
  decodePaymentResponseHeader,
  type PaymentRequirements,
  SAFE_PROXY_FACTORY_ADDRESS,
} from '@tollgate/core'
import { PERMIT2_ADDRESS, toViemChain } from '@tollgate/devnet'
import { createEip3009Client } from '@tollgate/evm'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { paymentMiddleware, x402ResourceServer } from '@x402/hono'
import { Hono } from 'hono'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  isErc6492Signature,
  maxUint256,
  type PublicClient,
  parseAbi,
  serializeErc6492Signature,
  zeroAddress,
} from 'viem'
import type { SmartAccount } from 'viem/account-abstraction'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentRequired } from '../src/index.js'
import { type DevnetStack, MERCHANT_EVM, schemes, startDevnetStack } from './devnet-stack.js'
import { createOfficialFacilitator } from './official-facilitator.js'

// Counterfactual and deployed Safes (permissionless toSafeSmartAccount) pay through our agent, our
// middleware and our facilitator on the devnet; and across the official SDK in both directions.
const BASE = 'eip155:84532'
const BSC = 'eip155:97'
let stack: DevnetStack

beforeAll(async () => {
  stack = await startDevnetStack()
})
afterAll(async () => {
  await stack?.stop()
})

function createShop() {
  const app = new Hono()
  app.use(
    paymentRequired({
      facilitator: stack.facilitator,
      schemes,
      assets: stack.assets,
      payTo: { evm: MERCHANT_EVM },
      routes: {
        'GET /eip3009': { price: '$0.01', accepts: { scheme: 'eip3009', network: BASE } },
        'GET /permit2': { price: '$0.02', accepts: { scheme: 'permit2', network: BSC, asset: 'USDT' } },
      },
    }),
  )
  app.get('/*', (c) => c.json({ report: 'sunny' }))
  return (input: RequestInfo | URL, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(input, init)))
}

/** A fresh owner's counterfactual Safe on `network`, holding `usdc` atomic units of `symbol`. */
async function createFundedSafe(network: string, symbol: string, amount: bigint) {
  const owner = privateKeyToAccount(generatePrivateKey())
  const rpcUrl = stack.rpcs[network] as string
  const safe = await createSafeAccount({ owner, network, rpcUrl, pollingInterval: 50 })
  await stack.devnet.fund({ network, address: safe.address, asset: symbol, amount })
  return { owner, safe }
}

function publicClient(network: string): PublicClient {
  const net = stack.devnet.networks[network]
  return createPublicClient({ chain: net && toViemChain(net), transport: http(), pollingInterval: 50 })
}

const hasCode = async (network: string, address: Address) =>
  ((await publicClient(network).getCode({ address })) ?? '0x') !== '0x'

/** The signature our agent sent in its PAYMENT-SIGNATURE header, seen on the way to the shop. */
function recordSignatures(fetch: ReturnType<typeof createShop>, signatures: Hex[]) {
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const header = new Request(input, init).headers.get('PAYMENT-SIGNATURE')
    if (header) {
      signatures.push(JSON.parse(Buffer.from(header, 'base64').toString()).payload.signature)
    }
    return fetch(input, init)
  }
}

/** Transactions to Safe's proxy factory in the blocks after `fromBlock` on Base Sepolia. */
async function countDeployments(fromBlock: bigint): Promise<number> {
  const client = publicClient(BASE)
  const toBlock = await client.getBlockNumber()
  const blocks = await Promise.all(
    Array.from({ length: Number(toBlock - fromBlock) }, (_, i) =>
      client.getBlock({ blockNumber: fromBlock + 1n + BigInt(i), includeTransactions: true }),
    ),
  )
  const factory = SAFE_PROXY_FACTORY_ADDRESS.toLowerCase()
  return blocks.flatMap((b) => b.transactions).filter((tx) => tx.to?.toLowerCase() === factory).length
}

async function getRequirements(path: string): Promise<PaymentRequirements> {
  const offer = await parsePaymentRequired(await createShop()(`http://shop.test${path}`), path)
  return offer.accepts[0] as PaymentRequirements
}

/** Runs `calls` as a Safe transaction signed by its single owner, sent (and paid) by a devnet relayer. */
async function execSafeTransaction(
  network: string,
  owner: ReturnType<typeof privateKeyToAccount>,
  safe: SmartAccount,
  call: { to: Address; data: Hex },
) {
  const net = stack.devnet.networks[network]
  const relayer = stack.devnet.wallets.find((w) => w.network === network && w.role === 'relayer')
  const sender = createWalletClient({
    account: privateKeyToAccount(relayer?.privateKey as Hex),
    chain: net && toViemChain(net),
    transport: http(),
  })
  const tx = {
    to: call.to,
    value: 0n,
    data: call.data,
    operation: 0,
    safeTxGas: 0n,
    baseGas: 0n,
    gasPrice: 0n,
    gasToken: zeroAddress,
    refundReceiver: zeroAddress,
  }
  const nonce = await publicClient(network).readContract({
    address: safe.address,
    abi: SAFE_ABI,
    functionName: 'nonce',
  })
  const signature = await owner.signTypedData({
    domain: { chainId: net?.chainId, verifyingContract: safe.address },
    types: SAFE_TX_TYPES,
    primaryType: 'SafeTx',
    message: { ...tx, nonce },
  })
  const hash = await sender.writeContract({
    chain: sender.chain,
    address: safe.address,
    abi: SAFE_ABI,
    functionName: 'execTransaction',
    args: [
      tx.to,
      tx.value,
      tx.data,
      tx.operation,
      tx.safeTxGas,
      tx.baseGas,
      tx.gasPrice,
      tx.gasToken,
      tx.refundReceiver,
      signature,
    ],
  })
  const receipt = await publicClient(network).waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
}

describe('smart-account payers (Safe 1.4.1) on the devnet', () => {
  test('behavior: a counterfactual Safe pays with ERC-6492; the facilitator deploys it; then it pays deployed (ERC-1271)', async () => {
    const { safe } = await createFundedSafe(BASE, 'USDC', 1_000_000n)
    expect(await hasCode(BASE, safe.address)).toBe(false)
    const before = await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)
    const signatures: Hex[] = []
    const pay = wrapFetch(recordSignatures(createShop(), signatures), {
      wallets: { evm: safe },
      assets: stack.assets,
      policy: { maxPerDay: '$0.015' },
    })

    const first = await pay('http://shop.test/eip3009')
    expect(first.status).toBe(200)
    expect(isErc6492Signature(signatures[0] as Hex)).toBe(true)
    expect(getPaymentRecord(first)).toMatchObject({ payer: safe.address, scheme: 'eip3009' })
    expect(getPaymentReceipt(first)).toMatchObject({ success: true, payer: safe.address })
    expect(await hasCode(BASE, safe.address)).toBe(true)
    expect(await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
    expect(await stack.balanceOf(BASE, 'USDC', safe.address)).toBe(990_000n)

    // The policy counts what the Safe paid: a second $0.01 would pass $0.015 a day.
    await expect(pay('http://shop.test/eip3009')).rejects.toMatchObject({ code: 'payment_policy_refused' })
    const again = await wrapFetch(recordSignatures(createShop(), signatures), {
      wallets: { evm: safe },
      assets: stack.assets,
    })('http://shop.test/eip3009')
    expect(again.status).toBe(200)
    expect(isErc6492Signature(signatures[1] as Hex)).toBe(false)
    expect(await stack.balanceOf(BASE, 'USDC', safe.address)).toBe(980_000n)
  })

  test('behavior: a deployed Safe pays with permit2 after approving Permit2 from the Safe', async () => {
    const usdt = stack.assets.get(BSC, 'USDT')
    const { owner, safe } = await createFundedSafe(BSC, 'USDT', 10n ** 18n)
    const factory = await safe.getFactoryArgs()
    const relayer = stack.devnet.wallets.find((w) => w.network === BSC && w.role === 'relayer')
    const net = stack.devnet.networks[BSC]
    const deployer = createWalletClient({
      account: privateKeyToAccount(relayer?.privateKey as Hex),
      chain: net && toViemChain(net),
      transport: http(),
    })
    await publicClient(BSC).waitForTransactionReceipt({
      hash: await deployer.sendTransaction({
        chain: deployer.chain,
        to: factory.factory as Address,
        data: factory.factoryData as Hex,
      }),
    })
    const approve = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'approve',
      args: [PERMIT2_ADDRESS, maxUint256],
    })
    await execSafeTransaction(BSC, owner, safe, { to: usdt.address as Address, data: approve })
    const before = await stack.balanceOf(BSC, 'USDT', MERCHANT_EVM)
    const response = await wrapFetch(createShop(), { wallets: { evm: safe }, assets: stack.assets })(
      'http://shop.test/permit2',
    )
    expect(response.status).toBe(200)
    expect(getPaymentReceipt(response)).toMatchObject({ success: true, payer: safe.address })
    expect(await stack.balanceOf(BSC, 'USDT', MERCHANT_EVM)).toBe(before + 2n * 10n ** 16n)
  })

  test('behavior: ten concurrent settles of one counterfactual payload deploy once and transfer once', async () => {
    const { safe } = await createFundedSafe(BASE, 'USDC', 1_000_000n)
    const requirements = await getRequirements('/eip3009')
    const payload = await createEip3009Client({ account: safe, network: BASE }).createPayload(requirements)
    const request = {
      x402Version: 2 as const,
      paymentPayload: { x402Version: 2 as const, accepted: requirements, payload },
      paymentRequirements: requirements,
    }
    const fromBlock = await publicClient(BASE).getBlockNumber()
    const before = await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)
    const answers = await Promise.all(Array.from({ length: 10 }, () => stack.facilitator.settle(request)))
    // One transaction, answered to one caller; the other nine are refused.
    expect(answers.filter((a) => a.success)).toHaveLength(1)
    expect(answers.filter((a) => a.errorReason === 'duplicate_settlement')).toHaveLength(9)
    expect(await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
    expect(await countDeployments(fromBlock)).toBe(1)
  })

  test('behavior: two payments of one counterfactual Safe settled at once share one deployment', async () => {
    const { safe } = await createFundedSafe(BASE, 'USDC', 1_000_000n)
    const requirements = await getRequirements('/eip3009')
    const client = createEip3009Client({ account: safe, network: BASE })
    const requests = await Promise.all(
      [0, 1].map(async () => ({
        x402Version: 2 as const,
        paymentPayload: {
          x402Version: 2 as const,
          accepted: requirements,
          payload: await client.createPayload(requirements),
        },
        paymentRequirements: requirements,
      })),
    )
    const fromBlock = await publicClient(BASE).getBlockNumber()
    const answers = await Promise.all(requests.map((request) => stack.facilitator.settle(request)))
    expect(answers.map((a) => a.success)).toEqual([true, true])
    expect(await countDeployments(fromBlock)).toBe(1)
    expect(await stack.balanceOf(BASE, 'USDC', safe.address)).toBe(980_000n)
  })

  test('behavior: an ERC-6492 payload naming another factory is refused with the reason, as data', async () => {
    const { safe } = await createFundedSafe(BASE, 'USDC', 1_000_000n)
    const requirements = await getRequirements('/eip3009')
    const payload = (await createEip3009Client({ account: safe, network: BASE }).createPayload(
      requirements,
    )) as { signature: Hex; authorization: unknown }
    const foreign = serializeErc6492Signature({
      address: '0x00000000000000000000000000000000000fac70',
      data: '0xdeadbeef',
      signature: payload.signature,
    })
    const request = {
      x402Version: 2 as const,
      paymentPayload: {
        x402Version: 2 as const,
        accepted: requirements,
        payload: { ...payload, signature: foreign },
      },
      paymentRequirements: requirements,
    }
    expect(await stack.facilitator.verify(request)).toMatchObject({
      isValid: false,
      invalidReason: 'eip6492_factory_not_allowed',
    })
    expect(await stack.facilitator.settle(request)).toMatchObject({
      success: false,
      errorReason: 'eip6492_factory_not_allowed',
    })
    expect(await hasCode(BASE, safe.address)).toBe(false)
  })

  test('behavior: our Safe agent pays an official @x402/hono server backed by the official facilitator', async () => {
    const facilitator = createOfficialFacilitator(stack, BASE, {
      eip6492AllowedFactories: [SAFE_PROXY_FACTORY_ADDRESS],
    })
    const app = new Hono()
    app.use(
      paymentMiddleware(
        {
          'GET /weather': {
            accepts: { scheme: 'exact', price: '$0.01', network: BASE, payTo: MERCHANT_EVM },
          },
        },
        new x402ResourceServer(facilitator).register(BASE, new ExactEvmServer()),
      ),
    )
    app.get('/weather', (c) => c.json({ report: 'sunny' }))
    const { safe } = await createFundedSafe(BASE, 'USDC', 1_000_000n)
    const pay = wrapFetch((input, init) => Promise.resolve(app.fetch(new Request(input, init))), {
      wallets: { evm: safe },
      assets: stack.assets,
    })
    const counterfactual = await pay('http://shop.test/weather')
    expect(counterfactual.status).toBe(200)
    expect(getPaymentReceipt(counterfactual)).toMatchObject({ success: true, payer: safe.address })
    expect(await hasCode(BASE, safe.address)).toBe(true)
    const deployed = await pay('http://shop.test/weather')
    expect(deployed.status).toBe(200)
    expect(await stack.balanceOf(BASE, 'USDC', safe.address)).toBe(980_000n)
  })

  test('behavior: the official @x402/fetch with a Safe signer pays our middleware and facilitator', async () => {
    const { safe } = await createFundedSafe(BASE, 'USDC', 1_000_000n)
    const signer = toClientEvmSigner(safe, publicClient(BASE))
    const client = new x402Client().register(BASE, new ExactEvmClient(signer))
    const before = await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)
    const response = await wrapFetchWithPayment(createShop(), client)('http://shop.test/eip3009')
    expect(response.status).toBe(200)
    expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '')).toMatchObject({
      success: true,
      payer: safe.address,
    })
    expect(await hasCode(BASE, safe.address)).toBe(true)
    expect(await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
  })

  test('behavior: the CLI prints the owner key’s Safe address and pays from it with --smart-account safe', async () => {
    const key = generatePrivateKey()
    const safe = await createSafeAccount({ owner: key, network: BASE, rpcUrl: stack.rpcs[BASE] as string })
    await stack.devnet.fund({ network: BASE, address: safe.address, asset: 'USDC', amount: 1_000_000n })
    const run = async (argv: string[]) => {
      let stdout = ''
      let stderr = ''
      const status = await runCli(argv, {
        env: { TOLLGATE_EVM_PRIVATE_KEY: key },
        fetch: createShop(),
        stdout: { write: (chunk) => (stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk)) },
        stderr: { write: (chunk) => (stderr += chunk) },
      })
      return { status, stdout, stderr }
    }
    const rpc = ['--smart-account', 'safe', '--rpc', `${BASE}=${stack.rpcs[BASE]}`]
    expect(await run(['address', ...rpc])).toMatchObject({
      status: 0,
      stdout: `${BASE} ${safe.address} (safe, not deployed yet)\n`,
    })
    const paid = await run(['pay', 'http://shop.test/eip3009', ...rpc])
    expect(paid).toMatchObject({ status: 0, stdout: '{"report":"sunny"}' })
    expect(paid.stderr).toContain(`via eip3009 from ${safe.address}`)
    expect((await run(['address', ...rpc])).stdout).toContain('(safe, deployed)')
  })
})

const SAFE_TX_TYPES = {
  SafeTx: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' },
    { name: 'safeTxGas', type: 'uint256' },
    { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' },
    { name: 'gasToken', type: 'address' },
    { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const

const SAFE_ABI = parseAbi([
  'function nonce() view returns (uint256)',
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool)',
])
