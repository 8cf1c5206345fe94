import { describe, expect, test } from 'vitest'
import { createPaymentHandler, getPayment } from './create-payment-handler.js'
import {
  createFakeFacilitator,
  createPaymentHeader,
  fakeSchemes,
  MERCHANT_EVM,
  PAYER,
  readPaymentRequired,
} from './testing/fakes.js'

function setup() {
  const facilitator = createFakeFacilitator()
  const wrap = createPaymentHandler({
    facilitator,
    schemes: fakeSchemes,
    payTo: MERCHANT_EVM,
    routes: { 'GET /paid': { price: '$0.05', accepts: { scheme: 'eip3009', network: 'eip155:84532' } } },
  })
  return { facilitator, wrap }
}

async function payingRequest(handler: (request: Request) => Promise<Response>): Promise<Request> {
  const offer = readPaymentRequired(await handler(new Request('http://api.test/paid')))
  const accepted = offer.accepts[0]
  if (!accepted) {
    throw new Error('no requirement')
  }
  return new Request('http://api.test/paid', {
    headers: { 'PAYMENT-SIGNATURE': createPaymentHeader(accepted) },
  })
}

describe('createPaymentHandler', () => {
  test('default: the handler sees the payment as its second argument and through getPayment', async () => {
    const { facilitator, wrap } = setup()
    const handler = wrap(async (request, payment) =>
      Response.json({ second: payment?.payer, accessor: getPayment(request)?.amount }),
    )
    const response = await handler(await payingRequest(handler))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ second: PAYER, accessor: '50000' })
    expect(response.headers.get('PAYMENT-RESPONSE')).not.toBeNull()
    expect(facilitator.calls.settle).toHaveLength(1)
  })

  test('behavior: unprotected paths reach the handler without a payment', async () => {
    const { wrap } = setup()
    const handler = wrap(async (_request, payment) => new Response(payment === undefined ? 'free' : 'paid'))
    expect(await (await handler(new Request('http://api.test/other'))).text()).toBe('free')
  })

  test('behavior: a throwing handler is not charged and the error propagates', async () => {
    const { facilitator, wrap } = setup()
    const handler = wrap(async (request) => {
      if (request.headers.has('PAYMENT-SIGNATURE')) {
        throw new Error('boom')
      }
      return new Response('unreachable')
    })
    await expect(handler(await payingRequest(handler))).rejects.toThrow('boom')
    expect(facilitator.calls.verify).toHaveLength(1)
    expect(facilitator.calls.settle).toHaveLength(0)
  })

  test('behavior: a settle failure discards the handler’s body', async () => {
    const { facilitator, wrap } = setup()
    facilitator.settleResults = [
      { success: false, errorReason: 'x', transaction: '', network: 'eip155:84532' },
    ]
    const handler = wrap(async () => new Response('secret content'))
    const response = await handler(await payingRequest(handler))
    expect(response.status).toBe(402)
    expect(await response.text()).toBe('{}')
  })
})
