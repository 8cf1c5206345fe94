import type { AddressInfo } from 'node:net'
import { wrapFetch } from '@tollgate/agent'
import type { FacilitatorRequest } from '@tollgate/core'
import { readPaymentRequired } from '@tollgate/middleware/testing'
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server'
import { paymentMiddleware, x402ResourceServer } from '@x402/hono'
import express from 'express'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  createPaymentHandler,
  type PaymentMiddlewareOptions,
  type PaymentVariables,
  paymentRequired,
  paymentRequiredExpress,
} from '../src/index.js'
import { type DevnetStack, MERCHANT_EVM, schemes, startDevnetStack } from './devnet-stack.js'

// One signed payment sent five times at once buys one response (docs/security.md, 'One payment,
// one delivery'): through our middleware (hono, Fetch, Express) and through the official
// @x402/hono middleware in front of our facilitator, on the devnet.
const BASE = 'eip155:84532'
const PRICE = 10_000n
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

type Send = (request: Request) => Promise<Response>

/**
 * Pays `url` with a fresh eip3009 payment from our agent, but sends the paid request `copies`
 * times at once (what an attacker replaying one header does); returns every answer.
 */
async function payFiveTimesAtOnce(send: Send, url: string, copies = 5): Promise<Response[]> {
  const answers: Response[] = []
  const fanOut = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    if (!request.headers.has('PAYMENT-SIGNATURE')) {
      return send(request)
    }
    const all = await Promise.all(Array.from({ length: copies }, () => send(request.clone())))
    answers.push(...all)
    return all.find((r) => r.status === 200) ?? (all[0] as Response)
  }
  const pay = wrapFetch(fanOut, {
    wallets: { evm: stack.payer(BASE).privateKey as `0x${string}` },
    policy: { maxPerPayment: '$0.01', allowedHosts: ['shop.test', '127.0.0.1'] },
    assets: stack.assets,
  })
  await pay(url)
  return answers
}

function options(): PaymentMiddlewareOptions {
  return {
    facilitator: stack.facilitator,
    schemes,
    assets: stack.assets,
    payTo: { evm: MERCHANT_EVM },
    routes: { 'GET /paid': { price: '$0.01', accepts: { scheme: 'eip3009', network: BASE } } },
  }
}

async function expectOneDelivery(answers: Response[], handled: number, before: bigint) {
  expect(answers.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402])
  expect(handled).toBe(1)
  for (const refused of answers.filter((r) => r.status === 402)) {
    expect(readPaymentRequired(refused).error).toBe('duplicate_settlement')
  }
  expect(await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)).toBe(before + PRICE)
}

describe('one payment, one delivery (devnet)', () => {
  test('behavior: hono: five concurrent copies of one payment get one 200, the handler runs once', async () => {
    let handled = 0
    const app = new Hono<{ Variables: PaymentVariables }>()
    app.use(paymentRequired(options()))
    app.get('/paid', (c) => {
      handled += 1
      return c.json({ payer: c.get('payment').payer })
    })
    const before = await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)
    const answers = await payFiveTimesAtOnce((r) => Promise.resolve(app.fetch(r)), 'http://shop.test/paid')
    await expectOneDelivery(answers, handled, before)
  })

  test('behavior: Fetch handler: five concurrent copies of one payment get one 200, the handler runs once', async () => {
    let handled = 0
    const handler = createPaymentHandler(options())(async () => {
      handled += 1
      return Response.json({ ok: true })
    })
    const before = await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)
    const answers = await payFiveTimesAtOnce(handler, 'http://shop.test/paid')
    await expectOneDelivery(answers, handled, before)
  })

  test('behavior: Express: five concurrent copies of one payment get one 200, the handler runs once', async () => {
    let handled = 0
    const app = express()
    app.use(paymentRequiredExpress(options()))
    app.get('/paid', (_req, res) => {
      handled += 1
      res.json({ ok: true })
    })
    const base = await new Promise<string>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => {
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
      })
      servers.push(server)
    })
    const before = await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)
    const answers = await payFiveTimesAtOnce((r) => fetch(r), `${base}/paid`)
    await expectOneDelivery(answers, handled, before)
  })

  test('behavior: the official @x402/hono middleware in front of our facilitator answers one of five copies', async () => {
    // Our in-process facilitator, as the official resource server calls a facilitator.
    const ours = {
      verify: (paymentPayload: unknown, paymentRequirements: unknown) =>
        stack.facilitator.verify({
          x402Version: 2,
          paymentPayload,
          paymentRequirements,
        } as FacilitatorRequest),
      settle: (paymentPayload: unknown, paymentRequirements: unknown) =>
        stack.facilitator.settle({
          x402Version: 2,
          paymentPayload,
          paymentRequirements,
        } as FacilitatorRequest),
      getSupported: () => stack.facilitator.getSupported(),
    }
    const resourceServer = new x402ResourceServer(ours as never).register(BASE, new ExactEvmServer())
    let handled = 0
    const app = new Hono()
    app.use(
      paymentMiddleware(
        { 'GET /paid': { accepts: { scheme: 'exact', price: '$0.01', network: BASE, payTo: MERCHANT_EVM } } },
        resourceServer,
      ),
    )
    app.get('/paid', (c) => {
      handled += 1
      return c.json({ ok: true })
    })
    const before = await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)
    const answers = await payFiveTimesAtOnce((r) => Promise.resolve(app.fetch(r)), 'http://shop.test/paid')
    // The official middleware runs its handler for every copy that verified; our facilitator
    // answers the settlement's success to one of them, so only that one is delivered.
    expect(answers.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402])
    expect(handled).toBeGreaterThanOrEqual(1)
    expect(await stack.balanceOf(BASE, 'USDC', MERCHANT_EVM)).toBe(before + PRICE)
  })
})
