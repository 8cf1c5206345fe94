import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Socket,
  type Server as TcpServer,
} from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { createHttpPost } from '../src/http-post.js'

// A self-signed certificate for 127.0.0.1, for the https test only (openssl req -x509, EC P-256, 100 years).
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnPhShST8VN0cxnG5
r1FBN/As6iZJbIZKy0Jxr/ZMSCmhRANCAAQ35cGWyhFn23SaBNJrk5ogSYzDsTHU
RiTEzYE4CWPcG0g85gFkAVstxnIZFo/3+f+O/SMiQI82RhcmzU0BOl0g
-----END PRIVATE KEY-----`
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmDCCAT6gAwIBAgIUYKHprrhmIJscYCya8KIAKUM+HwwwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNdG9sbGdhdGUtdGVzdDAgFw0yNjExMjMwNjUxMzBaGA8yMTI2
MTAzMDA2NTEzMFowGDEWMBQGA1UEAwwNdG9sbGdhdGUtdGVzdDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABDflwZbKEWfbdJoE0muTmiBJjMOxMdRGJMTNgTgJY9wb
SDzmAWQBWy3GchkWj/f5/479IyJAjzZGFybNTQE6XSCjZDBiMB0GA1UdDgQWBBTH
bFaFPAstZVtVA5xdWI5IBoyJXjAfBgNVHSMEGDAWgBTHbFaFPAstZVtVA5xdWI5I
BoyJXjAPBgNVHRMBAf8EBTADAQH/MA8GA1UdEQQIMAaHBH8AAAEwCgYIKoZIzj0E
AwIDSAAwRQIgHOwKcbYcXDw174Y8Unw3BmyJ2z6e34A8S8gQ5SnGB0UCIQCCBQJd
NZDrh1o1XWS8fZdihqKtc1bol3Qj/uV1zyAVgA==
-----END CERTIFICATE-----`

const servers: (HttpServer | TcpServer)[] = []
const sockets = new Set<Socket>()

afterEach(async () => {
  for (const socket of sockets) {
    socket.destroy()
  }
  sockets.clear()
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) {
      server.closeAllConnections()
    }
    await new Promise((resolve) => server.close(resolve))
  }
})

const listen = async <T extends HttpServer | TcpServer>(server: T): Promise<string> => {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** An HTTP server echoing the request body and headers; counts connections. */
const startEcho = async () => {
  const stats = { connections: 0, requests: 0 }
  const server = createHttpServer((request, response) => {
    stats.requests++
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => {
      const text = JSON.stringify({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers })
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      })
      response.end(text)
    })
  })
  server.on('connection', () => stats.connections++)
  return { url: `http://${await listen(server)}/rpc?key=1`, stats }
}

/**
 * A raw TCP server: `answer(request number on this connection, socket)` writes whatever it likes.
 * `closed()` resolves once as many connections have fully closed as asked.
 */
const startRaw = async (answer: (n: number, socket: Socket) => void) => {
  const stats = { connections: 0, requests: 0 }
  let closedCount = 0
  const waiters: { count: number; resolve: () => void }[] = []
  const server = createTcpServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => {
      closedCount++
      for (const waiter of waiters.filter((w) => w.count <= closedCount)) {
        waiter.resolve()
      }
    })
    stats.connections++
    let n = 0
    let buffer = ''
    socket.on('data', (data) => {
      buffer += data.toString('latin1')
      const end = buffer.indexOf('\r\n\r\n')
      const length = Number(/content-length: (\d+)/i.exec(buffer)?.[1] ?? 0)
      if (end !== -1 && buffer.length >= end + 4 + length) {
        buffer = buffer.slice(end + 4 + length)
        stats.requests++
        answer(++n, socket)
      }
    })
    socket.on('error', () => {})
  })
  const closed = (count: number) =>
    new Promise<void>((resolve) => (closedCount >= count ? resolve() : waiters.push({ count, resolve })))
  return { url: `http://${await listen(server)}/`, stats, closed }
}

const ok = (body: string, head = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

describe('createHttpPost', () => {
  test('default: POSTs JSON with the URL path, query, headers and basic auth, over kept-alive connections', async () => {
    const { url, stats } = await startEcho()
    const post = createHttpPost(url.replace('http://', 'http://user:p%40ss@'), {
      headers: { 'X-Api-Key': 'k' },
      timeoutMs: 5000,
    })
    const first = await post('{"a":"é"}')
    expect(first.status).toBe(200)
    const echoed = JSON.parse(first.text) as { body: string; headers: Record<string, string> }
    expect(echoed.body).toBe('{"a":"é"}')
    expect(echoed.headers).toMatchObject({
      'x-api-key': 'k',
      'content-type': 'application/json; charset=utf-8',
      authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    })
    for (let i = 0; i < 5; i++) {
      await post('{}')
    }
    expect(stats.requests).toBe(6)
    expect(stats.connections).toBeLessThanOrEqual(2)
  })

  test('behavior: chunked and close-delimited bodies', async () => {
    const chunked = createHttpServer((request, response) => {
      request.resume()
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.write('{"part":')
        setImmediate(() => response.end('"two"}'))
      })
    })
    const chunkedPost = createHttpPost(`http://${await listen(chunked)}/`, { timeoutMs: 5000 })
    expect((await chunkedPost('{}')).text).toBe('{"part":"two"}')
    expect((await chunkedPost('{}')).text).toBe('{"part":"two"}')

    const raw = await startRaw((_, socket) =>
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"closed":true}'),
    )
    const post = createHttpPost(raw.url, { timeoutMs: 5000 })
    expect((await post('{}')).text).toBe('{"closed":true}')
    // That answer ended its connection: the next request opens another.
    expect((await post('{}')).text).toBe('{"closed":true}')
    expect(raw.stats).toEqual({ connections: 2, requests: 2 })
  })

  test('behavior: an error status resolves with its status and text', async () => {
    const raw = await startRaw((_, socket) =>
      socket.write('HTTP/1.1 429 Too Many Requests\r\ncontent-length: 4\r\n\r\nslow'),
    )
    const response = await createHttpPost(raw.url, { timeoutMs: 5000 })('{}')
    expect(response).toMatchObject({ status: 429, statusText: 'Too Many Requests', text: 'slow' })
  })

  test('behavior: a request whose kept-alive connection the server dropped is sent once more', async () => {
    // The server answers the first request of each connection and drops the connection on the second.
    const raw = await startRaw((n, socket) => (n === 1 ? socket.write(ok('{"ok":true}')) : socket.destroy()))
    const post = createHttpPost(raw.url, { timeoutMs: 5000, connections: 1 })
    expect((await post('{}')).text).toBe('{"ok":true}')
    expect((await post('{}')).text).toBe('{"ok":true}')
    expect(raw.stats).toEqual({ connections: 2, requests: 3 })
  })

  test('error: a request without an answer times out and is not resent; a dead port rejects', async () => {
    const raw = await startRaw(() => {})
    await expect(createHttpPost(raw.url, { timeoutMs: 50 })('{}')).rejects.toThrow(/timed out after 50 ms/)
    expect(raw.stats.requests).toBe(1)
    await expect(createHttpPost('http://127.0.0.1:1/', { timeoutMs: 5000 })('{}')).rejects.toThrow(
      /ECONNREFUSED/,
    )
    expect(() => createHttpPost('http://127.0.0.1/', { headers: { bad: 'a\r\nb' }, timeoutMs: 1 })).toThrow(
      TypeError,
    )
    expect(() => createHttpPost('ftp://127.0.0.1/', { timeoutMs: 1 })).toThrow(TypeError)
  })

  test('behavior: https with a private CA', async () => {
    const server = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (request, response) => {
      request.resume()
      request.on('end', () => response.writeHead(200, { 'content-length': 2 }).end('{}'))
    })
    const address = await listen(server)
    const trusted = createHttpPost(`https://${address}/`, { timeoutMs: 5000, tls: { ca: TEST_CERT } })
    expect((await trusted('{}')).text).toBe('{}')
    expect((await trusted('{}')).text).toBe('{}')
    await expect(createHttpPost(`https://${address}/`, { timeoutMs: 5000 })('{}')).rejects.toThrow(
      /self[- ]signed/,
    )
  })
})
