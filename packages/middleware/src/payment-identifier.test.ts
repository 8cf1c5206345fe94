import { encodeBase64Json, type PaymentRequirements } from '@tollgate/core'
import { Hono } from 'hono'
import { describe, expect, test } from 'vitest'
import { paymentRequired } from './payment-required.js'
import {
  createFakeFacilitator,
  fakeSchemes,
  MERCHANT_EVM,
  PAYER,
  readPaymentRequired,
} from './testing/fakes.js'
import type { PaymentMiddlewareOptions } from './types.js'

function setup(paymentIdentifier: NonNullable<PaymentMiddlewareOptions['paymentIdentifier']>) {
  const facilitator = createFakeFacilitator()
  let served = 0
  const app = new Hono()
  app.use(
    paymentRequired({
      facilitator,
      schemes: fakeSchemes,
      payTo: MERCHANT_EVM,
      paymentIdentifier,
      routes: { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } },
    }),
  )
  app.get('/x', (c) => c.json({ served: ++served }))
  return { app, facilitator }
}

function header(accepted: PaymentRequirements, id: string | undefined, nonce = '1'): string {
  return encodeBase64Json({
    x402Version: 2,
    accepted,
    payload: { signature: `0x${nonce}`, authorization: { from: PAYER } },
    ...(id !== undefined ? { extensions: { 'payment-identifier': { info: { required: false, id } } } } : {}),
  })
}

async function accepted(app: Hono): Promise<PaymentRequirements> {
  const requirement = readPaymentRequired(await app.request('/x')).accepts[0]
  if (!requirement) {
    throw new Error('no requirement')
  }
  return requirement
}

const ID = 'pay_0123456789abcdef'

describe('payment-identifier', () => {
  test('default: the 402 declares the extension', async () => {
    const { app } = setup({ required: true })
    const offer = readPaymentRequired(await app.request('/x'))
    expect(offer.extensions?.['payment-identifier']).toMatchObject({ info: { required: true } })
  })

  test('behavior: the same id and payment replay the first paid answer without a second charge', async () => {
    const { app, facilitator } = setup(true)
    const requirement = await accepted(app)
    const first = await app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID) } })
    const second = await app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID) } })
    expect(await first.json()).toEqual({ served: 1 })
    expect(second.status).toBe(200)
    expect(await second.json()).toEqual({ served: 1 })
    expect(second.headers.get('PAYMENT-RESPONSE')).toBe(first.headers.get('PAYMENT-RESPONSE'))
    expect(facilitator.calls.settle).toHaveLength(1)
  })

  test('behavior: the same id with another payment is 409', async () => {
    const { app, facilitator } = setup(true)
    const requirement = await accepted(app)
    await app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID, '1') } })
    const reused = await app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID, '2') } })
    expect(reused.status).toBe(409)
    expect(facilitator.calls.verify).toHaveLength(1)
  })

  test('behavior: a concurrent request with the same id is 409 while the first runs', async () => {
    const { app, facilitator } = setup(true)
    const requirement = await accepted(app)
    let release = () => {}
    const original = facilitator.verify
    facilitator.verify = async (request) => {
      await new Promise<void>((resolve) => {
        release = resolve
      })
      return original(request)
    }
    const first = app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID) } })
    await new Promise((resolve) => setTimeout(resolve, 10))
    const second = await app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID) } })
    release()
    expect(second.status).toBe(409)
    expect((await first).status).toBe(200)
  })

  test.each([
    [{ required: true }, undefined, 400],
    [true, 'short', 400],
    [true, 'has spaces in it, not allowed', 400],
    [true, undefined, 200],
  ] as const)('behavior: option %j with id %j answers %i', async (option, id, status) => {
    const { app } = setup(option)
    const response = await app.request('/x', {
      headers: { 'PAYMENT-SIGNATURE': header(await accepted(app), id) },
    })
    expect(response.status).toBe(status)
  })

  test('behavior: an id whose payment was not charged can be used again', async () => {
    const { app, facilitator } = setup(true)
    const requirement = await accepted(app)
    facilitator.settleResults = [
      { success: false, errorReason: 'boom', transaction: '', network: 'eip155:84532' },
      { success: true, transaction: '0x1', network: 'eip155:84532' },
    ]
    const failed = await app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID) } })
    expect(failed.status).toBe(402)
    const retried = await app.request('/x', { headers: { 'PAYMENT-SIGNATURE': header(requirement, ID) } })
    expect(retried.status).toBe(200)
    expect(facilitator.calls.settle).toHaveLength(2)
  })
})
