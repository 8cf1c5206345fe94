import { decodePaymentResponseHeader, SOLANA_DEVNET } from '@tollgate/core'
import { Hono } from 'hono'
import { describe, expect, test } from 'vitest'
import { type PaymentVariables, paymentRequired } from './payment-required.js'
import {
  assets,
  createFakeFacilitator,
  createPaymentHeader,
  FEE_PAYER,
  fakeSchemes,
  MERCHANT_EVM,
  MERCHANT_SVM,
  PAYER,
  readPaymentRequired,
} from './testing/fakes.js'
import type { PaymentMiddlewareOptions, RoutesConfig } from './types.js'

const routes: RoutesConfig = {
  'GET /weather': {
    price: '$0.01',
    description: 'Current weather',
    mimeType: 'application/json',
    accepts: [
      { scheme: 'eip3009', network: 'eip155:84532' },
      { scheme: 'permit2', network: 'eip155:97', asset: 'USDT' },
      { scheme: 'solana', network: SOLANA_DEVNET },
    ],
  },
  'GET /status/:code': { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } },
  'GET /later': { price: '$0.02', flow: 'upfront', accepts: { scheme: 'eip3009', network: 'eip155:84532' } },
}

function createApp(overrides: Partial<PaymentMiddlewareOptions> = {}) {
  const facilitator = createFakeFacilitator()
  const app = new Hono<{ Variables: PaymentVariables }>()
  app.use(
    paymentRequired({
      facilitator,
      schemes: fakeSchemes,
      assets,
      payTo: { evm: MERCHANT_EVM, svm: MERCHANT_SVM },
      routes,
      ...overrides,
    }),
  )
  app.get('/weather', (c) => {
    facilitator.log.push('handler')
    return c.json({ temp: 21, payment: c.get('payment') })
  })
  app.get('/status/:code', (c) => {
    facilitator.log.push('handler')
    const code = Number(c.req.param('code'))
    if (code === 0) {
      throw new Error('handler crashed')
    }
    return c.json({ code }, code as 200)
  })
  app.get('/later', (c) => {
    facilitator.log.push('handler')
    return c.json({ payment: c.get('payment') })
  })
  app.get('/free', (c) => c.text('free'))
  app.onError((_error, c) => c.json({ error: 'crashed' }, 500))
  return { app, facilitator }
}

async function offerFor(app: Hono<{ Variables: PaymentVariables }>, path: string) {
  return readPaymentRequired(await app.request(path))
}

async function pay(app: Hono<{ Variables: PaymentVariables }>, path: string, index = 0) {
  const offer = await offerFor(app, path)
  const accepted = offer.accepts[index]
  if (!accepted) {
    throw new Error(`no requirement ${index}`)
  }
  return app.request(path, { headers: { 'PAYMENT-SIGNATURE': createPaymentHeader(accepted) } })
}

describe('paymentRequired', () => {
  test('default: unpaid request gets 402 with the v2 header and the v1 body', async () => {
    const { app } = createApp()
    const response = await app.request('http://shop.test/weather')
    expect(response.status).toBe(402)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const offer = readPaymentRequired(response)
    expect(offer).toEqual({
      x402Version: 2,
      error: 'Payment required',
      resource: {
        url: 'http://shop.test/weather',
        description: 'Current weather',
        mimeType: 'application/json',
      },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '10000',
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          payTo: MERCHANT_EVM,
          maxTimeoutSeconds: 300,
          extra: { name: 'USDC', version: '2' },
        },
        {
          scheme: 'exact',
          network: 'eip155:97',
          amount: '10000000000000000',
          asset: '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd',
          payTo: MERCHANT_EVM,
          maxTimeoutSeconds: 300,
          extra: { assetTransferMethod: 'permit2' },
        },
        {
          scheme: 'exact',
          network: SOLANA_DEVNET,
          amount: '10000',
          asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
          payTo: MERCHANT_SVM,
          maxTimeoutSeconds: 300,
          extra: { feePayer: FEE_PAYER },
        },
      ],
    })
    // The legacy v1 body lists what a v1 client can pay: not Permit2, only legacy network names.
    const body = await response.json()
    expect(body).toMatchObject({ x402Version: 1, error: 'Payment required' })
    expect(body.accepts.map((r: { network: string }) => r.network)).toEqual(['base-sepolia', 'solana-devnet'])
    expect(body.accepts[0]).toEqual({
      scheme: 'exact',
      network: 'base-sepolia',
      maxAmountRequired: '10000',
      resource: 'http://shop.test/weather',
      description: 'Current weather',
      mimeType: 'application/json',
      payTo: MERCHANT_EVM,
      maxTimeoutSeconds: 300,
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      extra: { name: 'USDC', version: '2' },
    })
  })

  test('behavior: body is {} when no requirement has a legacy v1 form', async () => {
    const { app } = createApp({
      routes: { price: '$1', accepts: { scheme: 'permit2', network: 'eip155:97', asset: 'USDC' } },
    })
    const response = await app.request('/anything')
    expect(response.status).toBe(402)
    expect(await response.json()).toEqual({})
    expect(readPaymentRequired(response).accepts[0]?.amount).toBe('1000000000000000000')
  })

  test('behavior: defaults to Tollgate’s scheme servers', async () => {
    const facilitator = createFakeFacilitator()
    const app = new Hono()
    app.use(
      paymentRequired({
        facilitator,
        payTo: { evm: MERCHANT_EVM, svm: 'Fm6GfQr8pWqFVcgYTa6uVZYkF8CVYcr6RrYsm8pi6ZfG' },
        routes: {
          price: '$0.01',
          accepts: [
            routesEip3009,
            { scheme: 'permit2', network: 'eip155:97', asset: 'USDT' },
            { scheme: 'solana', network: SOLANA_DEVNET },
          ],
        },
      }),
    )
    facilitator.supported = {
      kinds: [
        {
          x402Version: 2,
          scheme: 'exact',
          network: SOLANA_DEVNET,
          extra: { feePayer: 'Fm6GfQr8pWqFVcgYTa6uVZYkF8CVYcr6RrYsm8pi6ZfG' },
        },
      ],
      extensions: [],
      signers: {},
    }
    const offer = readPaymentRequired(await app.request('/x'))
    expect(offer.accepts.map((r) => [r.network, r.amount, r.extra])).toEqual([
      ['eip155:84532', '10000', expect.objectContaining({ name: 'USDC', version: '2' })],
      ['eip155:97', '10000000000000000', expect.objectContaining({ assetTransferMethod: 'permit2' })],
      [
        SOLANA_DEVNET,
        '10000',
        expect.objectContaining({ feePayer: 'Fm6GfQr8pWqFVcgYTa6uVZYkF8CVYcr6RrYsm8pi6ZfG' }),
      ],
    ])
  })

  test('behavior: unprotected routes pass through without calling the facilitator', async () => {
    const { app, facilitator } = createApp()
    const response = await app.request('/free')
    expect(await response.text()).toBe('free')
    expect(facilitator.calls).toEqual({ verify: [], settle: [], supported: 0 })
  })

  test('behavior: OPTIONS (CORS preflight) is never charged', async () => {
    const { app } = createApp({ routes: { '/weather': { price: '$0.01', accepts: routesEip3009 } } })
    const response = await app.request('/weather', { method: 'OPTIONS' })
    expect(response.status).not.toBe(402)
  })

  test('behavior: paid request is verified, served with the payment, then settled', async () => {
    const { app, facilitator } = createApp()
    const response = await pay(app, '/weather')
    expect(response.status).toBe(200)
    expect(facilitator.log).toEqual(['verify', 'handler', 'settle'])
    const body = await response.json()
    expect(body.payment).toMatchObject({
      payer: PAYER,
      amount: '10000',
      network: 'eip155:84532',
      scheme: 'eip3009',
      x402Version: 2,
    })
    expect(body.payment.transaction).toBeUndefined()
    expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '')).toEqual({
      success: true,
      transaction: '0xabc',
      network: 'eip155:84532',
      payer: PAYER,
    })
    expect(response.headers.get('Cache-Control')).toBe('private')
    const [request] = facilitator.calls.settle
    expect(request?.x402Version).toBe(2)
    expect(request?.paymentRequirements).toEqual(facilitator.calls.verify[0]?.paymentRequirements)
  })

  test('behavior: the payment must match a requirement exactly (amount changed)', async () => {
    const { app, facilitator } = createApp()
    const offer = await offerFor(app, '/weather')
    const accepted = { ...offer.accepts[0], amount: '1' } as (typeof offer.accepts)[0]
    const response = await app.request('/weather', {
      headers: { 'PAYMENT-SIGNATURE': createPaymentHeader(accepted) },
    })
    expect(response.status).toBe(402)
    expect(readPaymentRequired(response).error).toBe('No matching payment requirements')
    expect(facilitator.calls.verify).toHaveLength(0)
  })

  test('behavior: accepted.extra may be a superset; dynamic fields are ignored', async () => {
    const { app, facilitator } = createApp()
    const offer = await offerFor(app, '/weather')
    const solana = offer.accepts[2]
    if (!solana) {
      throw new Error('no solana requirement')
    }
    const accepted = { ...solana, extra: { ...solana.extra, recentBlockhash: 'abc', memo: 'x' } }
    const response = await app.request('/weather', {
      headers: { 'PAYMENT-SIGNATURE': createPaymentHeader(accepted) },
    })
    expect(response.status).toBe(200)
    expect(facilitator.calls.verify).toHaveLength(1)
    const missingFeePayer = { ...solana, extra: {} }
    const rejected = await app.request('/weather', {
      headers: { 'PAYMENT-SIGNATURE': createPaymentHeader(missingFeePayer) },
    })
    expect(rejected.status).toBe(402)
  })

  test('behavior: an undecodable payment header gets a fresh 402', async () => {
    const { app, facilitator } = createApp()
    const response = await app.request('/weather', { headers: { 'PAYMENT-SIGNATURE': 'not base64!' } })
    expect(response.status).toBe(402)
    expect(readPaymentRequired(response).accepts).toHaveLength(3)
    expect(facilitator.calls.verify).toHaveLength(0)
  })

  test('behavior: verify failure answers 402 with fresh requirements and the reason', async () => {
    const { app, facilitator } = createApp()
    facilitator.verifyResult = { isValid: false, invalidReason: 'invalid_exact_evm_signature' }
    const response = await pay(app, '/weather')
    expect(response.status).toBe(402)
    const offer = readPaymentRequired(response)
    expect(offer.error).toBe('invalid_exact_evm_signature')
    expect(offer.accepts).toHaveLength(3)
    expect(facilitator.log).toEqual(['verify'])
  })

  test('behavior: permit2_allowance_required answers 412', async () => {
    const { app, facilitator } = createApp()
    facilitator.verifyResult = { isValid: false, invalidReason: 'permit2_allowance_required' }
    const response = await pay(app, '/weather', 1)
    expect(response.status).toBe(412)
    expect(readPaymentRequired(response).error).toBe('permit2_allowance_required')
    expect(facilitator.calls.settle).toHaveLength(0)
  })

  test.each([
    [404, '/status/404'],
    [500, '/status/500'],
    [500, '/status/0'],
  ])(
    'behavior: handler answering %i is not charged and its response goes out unchanged (%s)',
    async (status, path) => {
      const { app, facilitator } = createApp()
      const response = await pay(app, path)
      expect(response.status).toBe(status)
      expect(response.headers.get('PAYMENT-RESPONSE')).toBeNull()
      expect(facilitator.log).toEqual(['verify', 'handler'])
    },
  )

  test('behavior: settlement_pending is settled once more and then succeeds', async () => {
    const { app, facilitator } = createApp()
    facilitator.settleResults = [
      {
        success: false,
        errorReason: 'settlement_pending',
        transaction: '0xpending',
        network: 'eip155:84532',
      },
      { success: true, transaction: '0xpending', network: 'eip155:84532', payer: PAYER },
    ]
    const response = await pay(app, '/weather')
    expect(response.status).toBe(200)
    expect(facilitator.calls.settle).toHaveLength(2)
    expect(facilitator.calls.settle[1]).toEqual(facilitator.calls.settle[0])
    expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '').transaction).toBe(
      '0xpending',
    )
  })

  test('behavior: still pending after the one re-settle answers 402 with the transaction', async () => {
    const { app, facilitator } = createApp()
    facilitator.settleResults = [
      {
        success: false,
        errorReason: 'settlement_pending',
        transaction: '0xpending',
        network: 'eip155:84532',
      },
    ]
    const response = await pay(app, '/weather')
    expect(response.status).toBe(402)
    expect(facilitator.calls.settle).toHaveLength(2)
    expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '')).toMatchObject({
      success: false,
      errorReason: 'settlement_pending',
      transaction: '0xpending',
    })
  })

  test('behavior: settle failure answers 402 with PAYMENT-RESPONSE and body {}', async () => {
    const { app, facilitator } = createApp()
    facilitator.settleResults = [
      {
        success: false,
        errorReason: 'invalid_exact_evm_nonce_already_used',
        transaction: '',
        network: 'eip155:84532',
      },
    ]
    const response = await pay(app, '/weather')
    expect(response.status).toBe(402)
    expect(await response.json()).toEqual({})
    expect(response.headers.get('PAYMENT-REQUIRED')).toBeNull()
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    expect(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE') ?? '')).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
    })
    expect(facilitator.calls.settle).toHaveLength(1)
  })

  test('behavior: upfront flow settles before the handler and shows the transaction', async () => {
    const { app, facilitator } = createApp()
    const response = await pay(app, '/later')
    expect(response.status).toBe(200)
    expect(facilitator.log).toEqual(['settle', 'handler'])
    const body = await response.json()
    expect(body.payment).toMatchObject({ transaction: '0xabc', payer: PAYER, amount: '20000' })
    expect(response.headers.get('PAYMENT-RESPONSE')).not.toBeNull()
  })

  test('behavior: upfront settle failure never runs the handler', async () => {
    const { app, facilitator } = createApp()
    facilitator.settleResults = [
      {
        success: false,
        errorReason: 'invalid_exact_evm_signature',
        transaction: '',
        network: 'eip155:84532',
      },
    ]
    const response = await pay(app, '/later')
    expect(response.status).toBe(402)
    expect(facilitator.log).toEqual(['settle'])
  })

  test('behavior: facilitator outage during verify gives 502, no handler, no charge', async () => {
    const { app, facilitator } = createApp()
    const offer = await offerFor(app, '/weather')
    facilitator.verifyResult = new Error('ECONNREFUSED')
    const response = await app.request('/weather', {
      headers: { 'PAYMENT-SIGNATURE': createPaymentHeader(offer.accepts[0] as (typeof offer.accepts)[0]) },
    })
    expect(response.status).toBe(502)
    expect(await response.json()).toEqual({ error: 'facilitator error' })
    expect(facilitator.log).toEqual(['verify'])
  })

  test('behavior: facilitator outage during settle gives 502 instead of the content', async () => {
    const errors: unknown[] = []
    const { app, facilitator } = createApp({ onError: (error) => errors.push(error) })
    facilitator.settleResults = [new Error('socket hang up')]
    const response = await pay(app, '/weather')
    expect(response.status).toBe(502)
    expect(response.headers.get('PAYMENT-RESPONSE')).toBeNull()
    expect(errors).toHaveLength(1)
  })

  test('behavior: /supported outage gives 502 for routes that need it', async () => {
    const { app, facilitator } = createApp()
    facilitator.supported = new Error('down')
    expect((await app.request('/weather')).status).toBe(502)
    expect((await app.request('/status/200')).status).toBe(402)
  })

  test('behavior: /supported is cached across requests', async () => {
    const { app, facilitator } = createApp()
    await app.request('/weather')
    await app.request('/weather')
    await pay(app, '/weather')
    expect(facilitator.calls.supported).toBe(1)
  })

  test('behavior: a Solana option the facilitator cannot serve is left out', async () => {
    const errors: unknown[] = []
    const { app, facilitator } = createApp({ onError: (error) => errors.push(error) })
    facilitator.supported = { kinds: [], extensions: [], signers: {} }
    const offer = await offerFor(app, '/weather')
    expect(offer.accepts.map((r) => r.network)).toEqual(['eip155:84532', 'eip155:97'])
    expect(errors).toHaveLength(1)
  })

  test('behavior: browsers get an HTML paywall, still a 402 with the header', async () => {
    const { app } = createApp({ paywall: { appName: 'Weather <API>' } })
    const response = await app.request('/weather', { headers: { Accept: 'text/html,application/xhtml+xml' } })
    expect(response.status).toBe(402)
    expect(response.headers.get('Content-Type')).toContain('text/html')
    expect(readPaymentRequired(response).accepts).toHaveLength(3)
    const html = await response.text()
    expect(html).toContain('<title>Weather &lt;API&gt;</title>')
    expect(html).toContain('0.010000 USDC')
    expect(html).toContain('0.010000000000000000 USDT')
  })

  test('behavior: paywall: false answers browsers with the JSON 402', async () => {
    const { app } = createApp({ paywall: false })
    const response = await app.request('/weather', { headers: { Accept: 'text/html' } })
    expect(response.headers.get('Content-Type')).toBe('application/json')
  })

  test('behavior: a v1 X-PAYMENT payment is verified as v1 and answered with X-PAYMENT-RESPONSE', async () => {
    const { app, facilitator } = createApp()
    const v1 = {
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
      payload: { signature: '0xsig', authorization: { from: PAYER, to: MERCHANT_EVM, value: '10000' } },
    }
    const response = await app.request('http://shop.test/weather', {
      headers: { 'X-PAYMENT': Buffer.from(JSON.stringify(v1)).toString('base64') },
    })
    expect(response.status).toBe(200)
    expect(facilitator.calls.verify[0]).toEqual({
      x402Version: 1,
      paymentPayload: v1,
      paymentRequirements: {
        scheme: 'exact',
        network: 'base-sepolia',
        maxAmountRequired: '10000',
        resource: 'http://shop.test/weather',
        description: 'Current weather',
        mimeType: 'application/json',
        payTo: MERCHANT_EVM,
        maxTimeoutSeconds: 300,
        asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        extra: { name: 'USDC', version: '2' },
      },
    })
    expect(response.headers.get('X-PAYMENT-RESPONSE')).not.toBeNull()
    expect(response.headers.get('PAYMENT-RESPONSE')).toBeNull()
    expect((await response.json()).payment.x402Version).toBe(1)
  })

  test('behavior: a v1 settle failure gets the v1 body with the reason', async () => {
    const { app, facilitator } = createApp()
    facilitator.settleResults = [
      {
        success: false,
        errorReason: 'invalid_exact_evm_transaction_failed',
        transaction: '',
        network: 'base-sepolia',
      },
    ]
    const v1 = { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { authorization: {} } }
    const response = await app.request('/weather', {
      headers: { 'X-PAYMENT': Buffer.from(JSON.stringify(v1)).toString('base64') },
    })
    expect(response.status).toBe(402)
    expect(await response.json()).toMatchObject({
      x402Version: 1,
      error: 'invalid_exact_evm_transaction_failed',
    })
    expect(response.headers.get('X-PAYMENT-RESPONSE')).not.toBeNull()
  })

  test('behavior: a v1 payment for a network the route does not offer is refused', async () => {
    const { app, facilitator } = createApp()
    const v1 = { x402Version: 1, scheme: 'exact', network: 'base', payload: { authorization: {} } }
    const response = await app.request('/weather', {
      headers: { 'X-PAYMENT': Buffer.from(JSON.stringify(v1)).toString('base64') },
    })
    expect(response.status).toBe(402)
    expect(facilitator.calls.verify).toHaveLength(0)
  })

  test('behavior: headers set by earlier middleware survive on the 402', async () => {
    const facilitator = createFakeFacilitator()
    const app = new Hono()
    app.use(async (c, next) => {
      c.header('Access-Control-Allow-Origin', '*')
      await next()
    })
    app.use(
      paymentRequired({
        facilitator,
        schemes: fakeSchemes,
        payTo: MERCHANT_EVM,
        routes: { price: '$0.01', accepts: routesEip3009 },
      }),
    )
    app.get('/x', (c) => c.text('x'))
    const response = await app.request('/x')
    expect(response.status).toBe(402)
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*')
  })
})

const routesEip3009 = { scheme: 'eip3009', network: 'eip155:84532' } as const
