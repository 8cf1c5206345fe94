import { createKeyPairSignerFromBytes, getBase58Encoder } from '@solana/kit'
import { getPaymentReceipt, wrapFetch } from '@tollgate/agent'
import { decodePaymentResponseHeader, SOLANA_DEVNET } from '@tollgate/core'
import { toViemChain } from '@tollgate/devnet'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { wrapFetchWithPayment as wrapFetchV2, x402Client } from '@x402/fetch'
import { ExactSvmScheme as ExactSvmClient } from '@x402/svm/exact/client'
import { Hono } from 'hono'
import { createPublicClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { paymentRequired } from '../src/index.js'
import { type DevnetStack, MERCHANT_EVM, schemes, startDevnetStack } from './devnet-stack.js'

// The official clients pay our middleware: @x402/fetch 2.27 (v2 header; EVM and Solana) and the legacy v1
// x402-fetch 1.2 (reads the 402 JSON body, pays with X-PAYMENT).
let stack: DevnetStack

beforeAll(async () => {
  stack = await startDevnetStack({ solana: true })
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
      payTo: { evm: MERCHANT_EVM, svm: stack.merchantSolana() },
      routes: {
        'GET /solana': { price: '$0.03', accepts: { scheme: 'solana', network: SOLANA_DEVNET } },
        'GET /weather': {
          price: '$0.01',
          description: 'Weather report',
          accepts: [
            { scheme: 'eip3009', network: 'eip155:84532' },
            { scheme: 'permit2', network: 'eip155:97', asset: 'USDT' },
          ],
        },
        'GET /permit2-only': {
          price: '$0.02',
          accepts: { scheme: 'permit2', network: 'eip155:97', asset: 'USDT' },
        },
      },
    }),
  )
  app.get('/*', (c) => c.json({ report: 'sunny' }))
  return (input: RequestInfo | URL, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(input, init)))
}

function officialClient(network: string, privateKey: `0x${string}`) {
  const net = stack.devnet.networks[network]
  if (!net) {
    throw new Error(`no ${network}`)
  }
  const publicClient = createPublicClient({ chain: toViemChain(net), transport: http(), pollingInterval: 50 })
  return new ExactEvmClient(toClientEvmSigner(privateKeyToAccount(privateKey), publicClient))
}

describe('official clients → our middleware (devnet)', () => {
  test('behavior: @x402/fetch (v2) pays with eip3009', async () => {
    const payer = stack.payer('eip155:84532')
    const key = payer.privateKey as `0x${string}`
    const client = new x402Client().register('eip155:84532', officialClient('eip155:84532', key))
    const before = await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)
    const response = await wrapFetchV2(createShop(), client)('http://shop.test/weather')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ report: 'sunny' })
    expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '')).toMatchObject({
      success: true,
      payer: payer.address,
    })
    expect(await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
  })

  test('behavior: @x402/fetch (v2) pays with permit2 on an 18-decimal token', async () => {
    const key = stack.payer('eip155:97').privateKey as `0x${string}`
    const client = x402Client.fromConfig({
      schemes: [{ network: 'eip155:97', client: officialClient('eip155:97', key) }],
      // The reference client only pays tokens of its built-in table unless told otherwise.
      spendControls: false,
    })
    const before = await stack.balanceOf('eip155:97', 'USDT', MERCHANT_EVM)
    const response = await wrapFetchV2(createShop(), client)('http://shop.test/permit2-only')
    expect(response.status).toBe(200)
    expect(await stack.balanceOf('eip155:97', 'USDT', MERCHANT_EVM)).toBe(before + 2n * 10n ** 16n)
  })

  test('behavior: @x402/fetch (v2) pays with solana', async () => {
    const payer = stack.payer(SOLANA_DEVNET)
    const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(payer.privateKey))
    const rpcUrl = stack.devnet.networks[SOLANA_DEVNET]?.rpcUrl ?? ''
    const client = new x402Client().register(SOLANA_DEVNET, new ExactSvmClient(signer, { rpcUrl }))
    const merchant = stack.merchantSolana()
    const before = await stack.balanceOf(SOLANA_DEVNET, 'USDC', merchant)
    const response = await wrapFetchV2(createShop(), client)('http://shop.test/solana')
    expect(response.status).toBe(200)
    expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '')).toMatchObject({
      success: true,
      network: SOLANA_DEVNET,
    })
    expect(await stack.balanceOf(SOLANA_DEVNET, 'USDC', merchant)).toBe(before + 30_000n)
  })

  test('behavior: legacy x402-fetch (v1) reads the JSON body and pays with X-PAYMENT', async () => {
    const payer = stack.payer('eip155:84532', 1)
    const signer = await createSigner('base-sepolia', payer.privateKey as `0x${string}`)
    const before = await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)
    const response = await wrapFetchV1(createShop(), signer)('http://shop.test/weather')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ report: 'sunny' })
    expect(getPaymentReceipt(response)).toMatchObject({ success: true, payer: payer.address })
    expect(response.headers.get('X-PAYMENT-RESPONSE')).not.toBeNull()
    expect(await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
  })

  test('behavior: our agent pays the same shop (v2)', async () => {
    const key = stack.payer('eip155:84532', 1).privateKey as `0x${string}`
    const response = await wrapFetch(createShop(), { wallets: { evm: key }, assets: stack.assets })(
      'http://shop.test/weather',
    )
    expect(response.status).toBe(200)
    expect(getPaymentReceipt(response)?.success).toBe(true)
  })
})
