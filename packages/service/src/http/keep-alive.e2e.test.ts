import { createKeepAliveClient } from '@tollgate/core/testing'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Listening, listen } from '../sandbox/listen.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

// docs/input-limits.md "Keep-alive": answers sent before the body was read, or without reading it
// (413, 415, 401, a GET carrying a body), leave the connection able to carry the next request.
// Served as the sandbox serves it: a Fetch handler without the Node request.

const MiB = 1024 * 1024

describeEachDatabase('service keep-alive', (getDb) => {
  let h: Harness
  let server: Listening
  beforeAll(async () => {
    h = await createHarness(getDb())
    server = await listen((request) => h.app.fetch(request), { port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    await server?.close()
  })

  test('behavior: 413, 415, 401 and an unread GET body each leave the socket for the next request', async () => {
    const client = createKeepAliveClient(server.url)
    const key = { 'x-api-key': h.a.testKey }
    const json = { ...key, 'content-type': 'application/json' }
    try {
      const answers = [
        await client.send('POST', '/api/v1/sandbox/fund', { body: Buffer.alloc(MiB, 97), headers: json }),
        await client.send('POST', '/api/v1/sandbox/fund', {
          body: Buffer.alloc(MiB, 97),
          headers: json,
          chunked: true,
        }),
        await client.send('POST', '/api/v1/sandbox/fund', {
          body: 'x'.repeat(50_000),
          headers: { ...key, 'content-type': 'text/plain' },
        }),
        await client.send('POST', '/api/v1/sandbox/fund', {
          body: Buffer.alloc(MiB, 97),
          headers: { 'x-api-key': 'sk_test_nope' },
        }),
        await client.send('GET', '/api/v1/balance', { body: Buffer.alloc(MiB, 97), headers: key }),
        await client.send('GET', '/api/v1/balance', { headers: key }),
      ]
      expect(answers.map((a) => a.status)).toEqual([413, 413, 415, 401, 200, 200])
      expect(answers.slice(1).every((a) => a.reusedSocket)).toBe(true)
      expect(client.socketsOpened).toBe(1)
    } finally {
      client.close()
    }
  })

  test('behavior: a body too large to drain is answered with Connection: close', async () => {
    const client = createKeepAliveClient(server.url)
    try {
      const big = await client.send('POST', '/api/v1/sandbox/fund', {
        body: Buffer.alloc(17 * MiB, 97),
        headers: { 'x-api-key': h.a.testKey, 'content-type': 'application/json' },
      })
      expect(big).toMatchObject({ status: 413, connection: 'close' })
      const next = await client.send('GET', '/health')
      expect(next.status).toBe(200)
      expect(client.socketsOpened).toBe(2)
    } finally {
      client.close()
    }
  })
})
