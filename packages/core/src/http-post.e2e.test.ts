import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpPost, HttpPostResponseTooLargeError } from './http-post.js'

// A local server whose answer size the request body chooses: `{"bytes":N,"chunked":bool}`.
let server: Server
let url: string

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) {
      body += chunk
    }
    const { bytes, chunked } = JSON.parse(body) as { bytes: number; chunked: boolean }
    const payload = Buffer.alloc(bytes, 'a')
    if (chunked) {
      res.writeHead(200, { 'content-type': 'application/json' })
      for (let at = 0; at < payload.length; at += 1024) {
        res.write(payload.subarray(at, at + 1024))
      }
      res.end()
    } else {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': payload.length })
      res.end(payload)
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('createHttpPost response limit', () => {
  const post = () => createHttpPost(url, { timeoutMs: 5_000, maxResponseBytes: 10_000, connections: 1 })

  it('returns a body within the limit whole', async () => {
    const response = await post()(JSON.stringify({ bytes: 10_000, chunked: true }))
    expect(response.status).toBe(200)
    expect(response.text).toHaveLength(10_000)
  })

  it('refuses a body whose Content-Length passes the limit, before reading it', async () => {
    await expect(post()(JSON.stringify({ bytes: 10_001, chunked: false }))).rejects.toBeInstanceOf(
      HttpPostResponseTooLargeError,
    )
  })

  it('refuses a chunked body once it passes the limit, and the next call on the pool still works', async () => {
    const send = post()
    await expect(send(JSON.stringify({ bytes: 50_000, chunked: true }))).rejects.toThrow(
      /passes the limit of 10000/,
    )
    const next = await send(JSON.stringify({ bytes: 3, chunked: false }))
    expect(next.text).toBe('aaa')
  })
})
