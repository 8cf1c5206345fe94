import { REASONS } from '@tollgate/core'
import { type Context, Hono } from 'hono'
import { describe, expect, test } from 'vitest'
import { createMemoryPaymentClaims } from './payment-claims.js'
import { paymentRequired } from './payment-required.js'
import {
  assets,
  createFakeFacilitator,
  createPaymentHeader,
  fakeSchemes,
  MERCHANT_EVM,
  PAYER,
  readPaymentRequired,
} from './testing/fakes.js'

type Handler = (c: Context) => Response | Promise<Response>

// Long enough for every copy to arrive while the first is in flight.
const slowOk: Handler = async (c) => {
  await new Promise((resolve) => setTimeout(resolve, 20))
  return c.json({ ok: true })
}

function createShop(handler: Handler = slowOk) {
  const facilitator = createFakeFacilitator()
  const app = new Hono()
  app.use(
    paymentRequired({
      facilitator,
      schemes: fakeSchemes,
      assets,
      payTo: { evm: MERCHANT_EVM },
      routes: { 'GET /paid': { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } } },
    }),
  )
  let handled = 0
  app.get('/paid', (c) => {
    handled += 1
    return handler(c)
  })
  const header = async () =>
    createPaymentHeader(readPaymentRequired(await app.request('/paid')).accepts[0] as never)
  const send = (value: string) => app.request('/paid', { headers: { 'PAYMENT-SIGNATURE': value } })
  return { app, facilitator, header, send, handled: () => handled }
}

const pending = {
  success: false,
  errorReason: REASONS.settlementPending,
  transaction: '0xabc',
  network: 'eip155:84532',
}
const settled = { success: true, transaction: '0xabc', network: 'eip155:84532', payer: PAYER }

describe('runClaimed (one payment, one delivery)', () => {
  test('default: five concurrent copies of one payment: one 200, four 402 duplicate_settlement, one verify', async () => {
    const shop = createShop()
    const value = await shop.header()
    const answers = await Promise.all(Array.from({ length: 5 }, () => shop.send(value)))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402])
    expect(shop.handled()).toBe(1)
    // The copies are refused before the facilitator is asked anything.
    expect([shop.facilitator.calls.verify.length, shop.facilitator.calls.settle.length]).toEqual([1, 1])
    for (const refused of answers.filter((r) => r.status === 402)) {
      expect(readPaymentRequired(refused).error).toBe(REASONS.duplicateSettlement)
    }
  })

  test('behavior: a charged payment sent again later is refused without running the handler', async () => {
    const shop = createShop()
    const value = await shop.header()
    expect((await shop.send(value)).status).toBe(200)
    const again = await shop.send(value)
    expect([again.status, readPaymentRequired(again).error]).toEqual([402, REASONS.duplicateSettlement])
    expect(shop.handled()).toBe(1)
  })

  test('behavior: after settlement_pending the same payment may be sent again and gets the one outcome', async () => {
    const shop = createShop()
    // The gate re-settles once itself; both answer pending, so the request ends without a charge.
    shop.facilitator.settleResults = [pending, pending, settled]
    const value = await shop.header()
    expect((await shop.send(value)).status).toBe(402)
    const retried = await shop.send(value)
    expect(retried.status).toBe(200)
    expect(shop.facilitator.calls.settle).toHaveLength(3)
  })

  test('behavior: a payment the facilitator refused releases its claim (the payer may fix and resend)', async () => {
    const shop = createShop()
    shop.facilitator.verifyResult = { isValid: false, invalidReason: REASONS.insufficientFunds, payer: PAYER }
    const value = await shop.header()
    expect((await shop.send(value)).status).toBe(402)
    shop.facilitator.verifyResult = { isValid: true, payer: PAYER }
    expect((await shop.send(value)).status).toBe(200)
  })

  test('behavior: a handler that failed charged nothing and releases the claim', async () => {
    let calls = 0
    const shop = createShop((c) => {
      calls += 1
      return calls === 1 ? c.json({ error: 'busy' }, 503) : c.json({ ok: true })
    })
    const value = await shop.header()
    expect((await shop.send(value)).status).toBe(503)
    expect((await shop.send(value)).status).toBe(200)
  })
})

describe('createMemoryPaymentClaims', () => {
  test('default: one live claim per key; released or expired keys can be claimed again', async () => {
    const claims = createMemoryPaymentClaims()
    expect(await claims.claim('k', 1_000, 0)).toBe(true)
    expect(await claims.claim('k', 1_000, 10)).toBe(false)
    await claims.release('k')
    expect(await claims.claim('k', 1_000, 20)).toBe(true)
    expect(await claims.claim('k', 2_000, 999)).toBe(false)
    expect(await claims.claim('k', 2_000, 1_000)).toBe(true)
  })
})
