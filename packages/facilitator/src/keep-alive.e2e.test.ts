import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createKeepAliveClient } from '@tollgate/core/testing'
import { Hono } from 'hono'
import { mount } from 'hono/mount'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createFacilitator, type Facilitator } from './create-facilitator.js'
import { createFacilitatorApp } from './create-facilitator-app.js'
import { createFacilitatorListener } from './create-facilitator-listener.js'
import { createFakeScheme } from './testing/create-fake-scheme.js'
import { type ServedForTests, serveForTests } from './testing/serve-for-tests.js'

// docs/input-limits.md "Keep-alive": an answer sent before the body was read (413, 401) must leave
// the connection able to carry the next request, served directly and mounted under another app
// (as the sandbox serves it, where the body reaches the app as a Web stream).

const MiB = 1024 * 1024

const options = { authToken: 'secret' }
const modes = {
  direct: (facilitator: Facilitator) => serveForTests(createFacilitatorApp(facilitator, options).fetch),
  mounted: (facilitator: Facilitator) => {
    const app = createFacilitatorApp(facilitator, options)
    const root = new Hono()
    root.all('/facilitator/*', mount(app.fetch))
    // Like the sandbox's listener: the Node request is not passed on.
    return serveForTests((request) => root.fetch(request)).then((s) => ({
      ...s,
      url: `${s.url}/facilitator`,
    }))
  },
  // As `tollgate facilitator` and the sandbox serve it: the Node listener, hono behind it.
  listener: (facilitator: Facilitator): Promise<ServedForTests> => {
    const server = createServer(createFacilitatorListener(facilitator, options)).listen(0, '127.0.0.1')
    return new Promise((resolve) =>
      server.once('listening', () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done())
              server.closeAllConnections()
            }),
        }),
      ),
    )
  },
}

for (const [mode, start] of Object.entries(modes)) {
  describe(`facilitator keep-alive (${mode})`, () => {
    let served: ServedForTests
    beforeAll(async () => {
      const facilitator = createFacilitator({ schemes: [createFakeScheme()] })
      served = await start(facilitator)
    })
    afterAll(async () => {
      await served?.close()
    })
    const auth = { authorization: 'Bearer secret', 'content-type': 'application/json' }

    test('behavior: after a 413 (declared or chunked) the next request uses the same socket', async () => {
      const client = createKeepAliveClient(served.url)
      try {
        for (const chunked of [false, true]) {
          const big = await client.send('POST', '/verify', {
            body: Buffer.alloc(MiB, 97),
            headers: auth,
            chunked,
          })
          expect(big.status).toBe(413)
          const next = await client.send('POST', '/settle', { body: '{}', headers: auth })
          expect(next).toMatchObject({ status: 400, reusedSocket: true })
        }
        expect(client.socketsOpened).toBe(1)
      } finally {
        client.close()
      }
    })

    test('behavior: after a 401 with an unread 1 MB body the next request uses the same socket', async () => {
      const client = createKeepAliveClient(served.url)
      try {
        const refused = await client.send('POST', '/verify', {
          body: Buffer.alloc(MiB, 97),
          headers: { authorization: 'Bearer wrong' },
        })
        expect(refused.status).toBe(401)
        const next = await client.send('POST', '/settle', { body: '{"a":', headers: auth })
        expect(next).toMatchObject({ status: 400, reusedSocket: true })
        expect(client.socketsOpened).toBe(1)
      } finally {
        client.close()
      }
    })

    test('behavior: verify, a malformed body and settle answer in turn on one socket', async () => {
      const client = createKeepAliveClient(served.url)
      try {
        const body = JSON.stringify({ x402Version: 2, paymentPayload: {}, paymentRequirements: {} })
        const malformed = await client.send('POST', '/verify', { body: '{"a":', headers: auth })
        expect(malformed.status).toBe(400)
        const invalid = await client.send('POST', '/verify', { body, headers: auth })
        expect(invalid.status).toBe(400)
        const next = await client.send('POST', '/settle', { body, headers: auth })
        expect(next).toMatchObject({ status: 400, reusedSocket: true })
        expect(client.socketsOpened).toBe(1)
      } finally {
        client.close()
      }
    })

    test('behavior: a body too large to drain gets Connection: close, and the next request a new socket', async () => {
      const client = createKeepAliveClient(served.url)
      try {
        const big = await client.send('POST', '/verify', { body: Buffer.alloc(17 * MiB, 97), headers: auth })
        expect(big).toMatchObject({ status: 413, connection: 'close' })
        const next = await client.send('GET', '/supported', { headers: auth })
        expect(next.status).toBe(200)
        expect(client.socketsOpened).toBe(2)
      } finally {
        client.close()
      }
    })
  })
}
