import { getPaymentReceipt, getPaymentRecord, wrapFetch } from '@tollgate/agent'
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server'
import { paymentMiddleware, x402ResourceServer } from '@x402/hono'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type DevnetStack, MERCHANT_EVM, startDevnetStack } from './devnet-stack.js'
import { createOfficialFacilitator } from './official-facilitator.js'

// Our agent pays a merchant running the official @x402/hono middleware with the official
// facilitator (in-process, @x402/evm exact) on the devnet.
let stack: DevnetStack

beforeAll(async () => {
  stack = await startDevnetStack()
})
afterAll(async () => {
  await stack?.stop()
})

describe('our agent → official @x402/hono + official facilitator (devnet)', () => {
  test('behavior: eip3009 on Base Sepolia settles and the receipt reaches the agent', async () => {
    const resourceServer = new x402ResourceServer(createOfficialFacilitator(stack, 'eip155:84532')).register(
      'eip155:84532',
      new ExactEvmServer(),
    )
    const app = new Hono()
    app.use(
      paymentMiddleware(
        {
          'GET /weather': {
            accepts: { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo: MERCHANT_EVM },
            description: 'Weather report',
          },
        },
        resourceServer,
      ),
    )
    app.get('/weather', (c) => c.json({ report: 'sunny' }))
    const payer = stack.payer('eip155:84532')
    const before = await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)
    const pay = wrapFetch((input, init) => Promise.resolve(app.fetch(new Request(input, init))), {
      wallets: { evm: payer.privateKey as `0x${string}` },
      policy: { maxPerPayment: '$0.01', allowedHosts: ['shop.test'] },
      assets: stack.assets,
    })
    const response = await pay('http://shop.test/weather')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ report: 'sunny' })
    expect(getPaymentRecord(response)).toMatchObject({ scheme: 'eip3009', x402Version: 2, usd: '0.01' })
    expect(getPaymentReceipt(response)).toMatchObject({ success: true, payer: payer.address })
    expect(await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
  })
})
