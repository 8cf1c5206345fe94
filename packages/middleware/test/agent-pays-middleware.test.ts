import { getPaymentReceipt, getPaymentRecord, wrapFetch } from '@tollgate/agent'
import { SOLANA_DEVNET } from '@tollgate/core'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type PaymentVariables, paymentRequired } from '../src/index.js'
import { type DevnetStack, MERCHANT_EVM, schemes, startDevnetStack } from './devnet-stack.js'

// Our agent pays our middleware, which verifies and settles through our facilitator on the devnet.
let stack: DevnetStack

beforeAll(async () => {
  stack = await startDevnetStack({ solana: true })
})
afterAll(async () => {
  await stack?.stop()
})

function createShop() {
  const app = new Hono<{ Variables: PaymentVariables }>()
  app.use(
    paymentRequired({
      facilitator: stack.facilitator,
      schemes,
      assets: stack.assets,
      payTo: { evm: MERCHANT_EVM, svm: stack.merchantSolana() },
      routes: {
        'GET /eip3009': { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } },
        'GET /permit2': {
          price: '$0.02',
          accepts: { scheme: 'permit2', network: 'eip155:97', asset: 'USDT' },
        },
        'GET /solana': { price: '$0.03', accepts: { scheme: 'solana', network: SOLANA_DEVNET } },
        'GET /broken': { price: '$0.04', accepts: { scheme: 'eip3009', network: 'eip155:84532' } },
      },
    }),
  )
  app.get('/broken', (c) => c.json({ error: 'database down' }, 503))
  app.get('/:kind', (c) => c.json({ kind: c.req.param('kind'), payer: c.get('payment').payer }))
  return (input: RequestInfo | URL, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(input, init)))
}

describe('our agent → our middleware → our facilitator (devnet)', () => {
  test('behavior: eip3009 on Base Sepolia moves exactly the price', async () => {
    const payer = stack.payer('eip155:84532')
    const before = await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)
    const pay = wrapFetch(createShop(), {
      wallets: { evm: payer.privateKey as `0x${string}` },
      assets: stack.assets,
    })
    const response = await pay('http://shop.test/eip3009')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ kind: 'eip3009', payer: payer.address })
    const receipt = getPaymentReceipt(response)
    expect(receipt).toMatchObject({ success: true, network: 'eip155:84532', payer: payer.address })
    expect(receipt?.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
  })

  test('behavior: permit2 on BSC testnet (18-decimal USDT) moves exactly the price', async () => {
    const payer = stack.payer('eip155:97')
    const before = await stack.balanceOf('eip155:97', 'USDT', MERCHANT_EVM)
    const pay = wrapFetch(createShop(), {
      wallets: { evm: payer.privateKey as `0x${string}` },
      assets: stack.assets,
    })
    const response = await pay('http://shop.test/permit2')
    expect(response.status).toBe(200)
    expect(getPaymentRecord(response)).toMatchObject({ scheme: 'permit2', usd: '0.02' })
    expect(await stack.balanceOf('eip155:97', 'USDT', MERCHANT_EVM)).toBe(before + 2n * 10n ** 16n)
  })

  test('behavior: permit2 without allowance is 412, and the opt-in approval then pays', async () => {
    // The third devnet payer has tokens but never approved Permit2.
    const payer = stack.payer('eip155:97', 2)
    const wallets = { evm: payer.privateKey as `0x${string}`, rpcs: stack.rpcs }
    const refused = await wrapFetch(createShop(), { wallets, assets: stack.assets })(
      'http://shop.test/permit2',
    )
    expect(refused.status).toBe(412)
    const pay = wrapFetch(createShop(), { wallets, assets: stack.assets, autoApprovePermit2: true })
    const response = await pay('http://shop.test/permit2')
    expect(response.status).toBe(200)
    expect(getPaymentReceipt(response)?.success).toBe(true)
  })

  test('behavior: solana on devnet moves exactly the price', async () => {
    const payer = stack.payer(SOLANA_DEVNET)
    const merchant = stack.merchantSolana()
    const before = await stack.balanceOf(SOLANA_DEVNET, 'USDC', merchant)
    const pay = wrapFetch(createShop(), {
      wallets: { solana: payer.privateKey, rpcs: stack.rpcs },
      assets: stack.assets,
    })
    const response = await pay('http://shop.test/solana')
    expect(response.status).toBe(200)
    expect(getPaymentReceipt(response)).toMatchObject({ success: true, network: SOLANA_DEVNET })
    expect(await stack.balanceOf(SOLANA_DEVNET, 'USDC', merchant)).toBe(before + 30_000n)
  })

  test('behavior: a failing handler charges nothing (balances unchanged)', async () => {
    const payer = stack.payer('eip155:84532', 1)
    const payerBefore = await stack.balanceOf('eip155:84532', 'USDC', payer.address)
    const merchantBefore = await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)
    const pay = wrapFetch(createShop(), {
      wallets: { evm: payer.privateKey as `0x${string}` },
      assets: stack.assets,
    })
    const response = await pay('http://shop.test/broken')
    expect(response.status).toBe(503)
    expect(getPaymentReceipt(response)).toBeUndefined()
    expect(await stack.balanceOf('eip155:84532', 'USDC', payer.address)).toBe(payerBefore)
    expect(await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)).toBe(merchantBefore)
  })

  test('behavior: an unreachable facilitator gives 502 and charges nothing', async () => {
    const payer = stack.payer('eip155:84532', 1)
    const payerBefore = await stack.balanceOf('eip155:84532', 'USDC', payer.address)
    const app = new Hono()
    app.use(
      paymentRequired({
        facilitator: { url: 'http://127.0.0.1:9/facilitator', timeoutMs: 2000 },
        schemes,
        assets: stack.assets,
        payTo: MERCHANT_EVM,
        routes: { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } },
      }),
    )
    app.get('/x', (c) => c.text('content'))
    const pay = wrapFetch((input, init) => Promise.resolve(app.fetch(new Request(input, init))), {
      wallets: { evm: payer.privateKey as `0x${string}` },
      assets: stack.assets,
    })
    const response = await pay('http://shop.test/x')
    expect(response.status).toBe(502)
    expect(await response.json()).toMatchObject({
      error: expect.stringContaining('facilitator verify failed'),
    })
    expect(await stack.balanceOf('eip155:84532', 'USDC', payer.address)).toBe(payerBefore)
  })
})
