import type { AddressInfo } from 'node:net'
import { getPaymentReceipt, wrapFetch } from '@tollgate/agent'
import {
  createFakeFacilitator,
  createPaymentHeader,
  fakeSchemes,
  readPaymentRequired,
} from '@tollgate/middleware/testing'
import express from 'express'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paymentRequiredExpress } from '../src/index.js'
import { type DevnetStack, MERCHANT_EVM, schemes, startDevnetStack } from './devnet-stack.js'

// The Express adapter on a real HTTP server: fake-facilitator behaviour, then a devnet payment.
let stack: DevnetStack
const servers: { close(): void }[] = []

beforeAll(async () => {
  stack = await startDevnetStack()
})
afterAll(async () => {
  for (const server of servers) {
    server.close()
  }
  await stack?.stop()
})

async function listen(app: express.Express): Promise<string> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    })
    servers.push(server)
  })
}

function createApp(middleware: ReturnType<typeof paymentRequiredExpress>) {
  const app = express()
  app.use(middleware)
  app.get('/paid', (_req, res) => {
    res.set('X-Handler', 'yes').json({ payer: (res.locals.payment as { payer: string }).payer })
  })
  app.get('/fails', (_req, res) => {
    res.status(500).send('handler failed')
  })
  app.get('/throws', () => {
    throw new Error('boom')
  })
  app.get('/free', (_req, res) => {
    res.send('free')
  })
  return app
}

const route = { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } } as const

describe('paymentRequiredExpress', () => {
  test('behavior: 402, paid, handler failure and pass-through with a fake facilitator', async () => {
    const facilitator = createFakeFacilitator()
    const base = await listen(
      createApp(
        paymentRequiredExpress({
          facilitator,
          schemes: fakeSchemes,
          payTo: MERCHANT_EVM,
          routes: { 'GET /paid': route, 'GET /fails': route, 'GET /throws': route },
        }),
      ),
    )
    const unpaid = await fetch(`${base}/paid`)
    expect(unpaid.status).toBe(402)
    expect(unpaid.headers.get('cache-control')).toBe('no-store')
    const accepted = readPaymentRequired(unpaid).accepts[0]
    if (!accepted) {
      throw new Error('no requirement')
    }
    expect(accepted.payTo).toBe(MERCHANT_EVM)
    const headers = { 'PAYMENT-SIGNATURE': createPaymentHeader(accepted) }
    // Another payment: the first one, once charged, is never served again (one payment, one response).
    const other = {
      'PAYMENT-SIGNATURE': createPaymentHeader(accepted, {
        payload: { signature: '0xother', authorization: { to: accepted.payTo, value: accepted.amount } },
      }),
    }

    const paid = await fetch(`${base}/paid`, { headers })
    expect(paid.status).toBe(200)
    expect(paid.headers.get('x-handler')).toBe('yes')
    expect(paid.headers.get('payment-response')).not.toBeNull()
    expect(await paid.json()).toEqual({ payer: '0x1111111111111111111111111111111111111111' })
    expect(facilitator.calls.settle).toHaveLength(1)

    const failed = await fetch(`${base}/fails`, { headers: other })
    expect(failed.status).toBe(500)
    expect(await failed.text()).toBe('handler failed')
    const threw = await fetch(`${base}/throws`, { headers: other })
    expect(threw.status).toBe(500)
    expect(facilitator.calls.settle).toHaveLength(1)

    expect(await (await fetch(`${base}/free`)).text()).toBe('free')

    facilitator.settleResults = [
      { success: false, errorReason: 'x', transaction: '', network: 'eip155:84532' },
    ]
    const unsettled = await fetch(`${base}/paid`, { headers: other })
    expect(unsettled.status).toBe(402)
    expect(unsettled.headers.get('x-handler')).toBeNull()
    expect(await unsettled.text()).toBe('{}')
  })

  test('behavior: our agent pays an Express shop on the devnet', async () => {
    const base = await listen(
      createApp(
        paymentRequiredExpress({
          facilitator: stack.facilitator,
          schemes,
          assets: stack.assets,
          payTo: MERCHANT_EVM,
          routes: { 'GET /paid': route },
        }),
      ),
    )
    const payer = stack.payer('eip155:84532')
    const before = await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)
    const response = await wrapFetch(fetch, {
      wallets: { evm: payer.privateKey as `0x${string}` },
      assets: stack.assets,
    })(`${base}/paid`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ payer: payer.address })
    expect(getPaymentReceipt(response)?.success).toBe(true)
    expect(await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
  })
})
