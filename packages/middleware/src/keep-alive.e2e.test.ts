import { createKeepAliveClient } from '@tollgate/core/testing'
import { type ServedForTests, serveForTests } from '@tollgate/facilitator/testing'
import { Hono } from 'hono'
import { mount } from 'hono/mount'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createPaymentHandler } from './create-payment-handler.js'
import { paymentRequired } from './payment-required.js'
import { assets, createFakeFacilitator, fakeSchemes, MERCHANT_EVM, MERCHANT_SVM } from './testing/fakes.js'
import type { PaymentMiddlewareOptions } from './types.js'

// docs/input-limits.md "Keep-alive": the 402 of a paid route goes out without reading the request
// body; the connection must still carry the next request (hono middleware served directly and
// mounted under another app, and the Fetch handler wrapper).

const MiB = 1024 * 1024

const options = (): PaymentMiddlewareOptions => ({
  facilitator: createFakeFacilitator(),
  schemes: fakeSchemes,
  assets,
  payTo: { evm: MERCHANT_EVM, svm: MERCHANT_SVM },
  routes: { 'POST /paid': { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } } },
})

function createHonoApp(): Hono {
  const app = new Hono()
  app.use(paymentRequired(options()))
  app.post('/paid', (c) => c.json({ delivered: true }))
  app.get('/free', (c) => c.json({ free: true }))
  return app
}

const modes: Record<string, () => (request: Request, env?: unknown) => Response | Promise<Response>> = {
  'hono, direct': () => createHonoApp().fetch,
  'hono, mounted': () => {
    const root = new Hono()
    root.all('/*', mount(createHonoApp().fetch))
    return (request) => root.fetch(request)
  },
  'Fetch handler': () => {
    const paid = createPaymentHandler(options())(async () => Response.json({ delivered: true }))
    return (request) =>
      new URL(request.url).pathname === '/free' ? Response.json({ free: true }) : paid(request)
  },
}

for (const [mode, build] of Object.entries(modes)) {
  describe(`middleware keep-alive (${mode})`, () => {
    let served: ServedForTests
    beforeAll(async () => {
      served = await serveForTests(build())
    })
    afterAll(async () => {
      await served?.close()
    })

    test('behavior: a 402 to a request with an unread 1 MB body leaves the socket for the next request', async () => {
      const client = createKeepAliveClient(served.url)
      try {
        for (const chunked of [false, true]) {
          const unpaid = await client.send('POST', '/paid', { body: Buffer.alloc(MiB, 97), chunked })
          expect(unpaid.status).toBe(402)
          const next = await client.send('GET', '/free')
          expect(next).toMatchObject({ status: 200, reusedSocket: true })
        }
        expect(client.socketsOpened).toBe(1)
      } finally {
        client.close()
      }
    })

    test('behavior: a body too large to drain gets Connection: close with its 402', async () => {
      const client = createKeepAliveClient(served.url)
      try {
        const unpaid = await client.send('POST', '/paid', { body: Buffer.alloc(17 * MiB, 97) })
        expect(unpaid).toMatchObject({ status: 402, connection: 'close' })
        expect((await client.send('GET', '/free')).status).toBe(200)
        expect(client.socketsOpened).toBe(2)
      } finally {
        client.close()
      }
    })
  })
}
