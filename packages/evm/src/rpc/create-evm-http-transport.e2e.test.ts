import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  BaseError,
  createPublicClient,
  HttpRequestError,
  http,
  InvalidParamsRpcError,
  RpcRequestError,
  TimeoutError,
  type Transport,
} from 'viem'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { classifySendError } from '../relayer/classify-send-error.js'
import { type EvmHarness, startEvmHarness } from '../testing/devnet-harness.js'
import { createEvmHttpTransport } from './create-evm-http-transport.js'
import { describeError } from './describe-error.js'

const BASE = 'eip155:84532'

/** What the proxy does with the next requests (each entry is used once), then it forwards. */
type Mode = 'forward' | 'http-500' | 'hang' | 'drop' | 'refuse-batch'

let harness: EvmHarness
let proxy: Server
let proxyUrl: string
const seen: { body: string; connection: number }[] = []
let modes: Mode[] = []

beforeAll(async () => {
  harness = await startEvmHarness([BASE])
  const anvilUrl = harness.devnet.networks[BASE]?.rpcUrl as string
  let connections = 0
  const connectionIds = new WeakMap<object, number>()
  proxy = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) {
      chunks.push(chunk as Buffer)
    }
    const body = Buffer.concat(chunks).toString('utf8')
    let connection = connectionIds.get(request.socket)
    if (connection === undefined) {
      connection = ++connections
      connectionIds.set(request.socket, connection)
    }
    seen.push({ body, connection })
    const mode = modes.shift() ?? 'forward'
    if (mode === 'hang') {
      return
    }
    if (mode === 'drop') {
      request.socket.destroy()
      return
    }
    if (mode === 'http-500') {
      response.writeHead(500, { 'content-type': 'text/plain' }).end('boom')
      return
    }
    if (mode === 'refuse-batch' && body.startsWith('[')) {
      const refusal = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are off' } }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(refusal))
      return
    }
    const answer = await fetch(anvilUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text())
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`
})

afterAll(async () => {
  proxy?.closeAllConnections()
  await new Promise((resolve) => proxy?.close(resolve))
  await harness?.stop()
})

beforeEach(() => {
  seen.length = 0
  modes = []
})

/** The error viem's client surfaces for a call through `transport`, and the RPC/HTTP error in its chain. */
const failureOf = async (
  transport: Transport,
  call: (client: ReturnType<typeof createPublicClient>) => unknown,
) => {
  const client = createPublicClient({ transport })
  const error = await Promise.resolve()
    .then(() => call(client))
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  expect(error).toBeInstanceOf(BaseError)
  return error as BaseError
}

describe('createEvmHttpTransport against anvil', () => {
  test('a single call goes out as one plain JSON-RPC request and answers', async () => {
    const client = createPublicClient({ transport: createEvmHttpTransport(proxyUrl) })
    expect(await client.getChainId()).toBe(84532)
    expect(seen).toHaveLength(1)
    expect(JSON.parse(seen[0]?.body as string)).toMatchObject({ jsonrpc: '2.0', method: 'eth_chainId' })
  })

  test('calls issued in the same turn go out as ONE batch request, each getting its own answer', async () => {
    const client = createPublicClient({ transport: createEvmHttpTransport(proxyUrl) })
    const payer = harness.payers(BASE)[0]?.address as `0x${string}`
    const [chainId, block, balance] = await Promise.all([
      client.getChainId(),
      client.getBlockNumber({ cacheTime: 0 }),
      client.getBalance({ address: payer }),
    ])
    expect(seen).toHaveLength(1)
    const batch = JSON.parse(seen[0]?.body as string) as { method: string }[]
    expect(batch.map((b) => b.method).sort()).toEqual(['eth_blockNumber', 'eth_chainId', 'eth_getBalance'])
    expect(chainId).toBe(84532)
    expect(block).toBe(await harness.clientOf(BASE).getBlockNumber({ cacheTime: 0 }))
    expect(balance).toBe(await harness.clientOf(BASE).getBalance({ address: payer }))
    // The next turn's calls share one kept-alive connection with the first.
    await client.getChainId()
    expect(seen.map((s) => s.connection)).toEqual([seen[0]?.connection, seen[0]?.connection])
  })

  test("an RPC error surfaces as viem's http transport raises it: same class, code and message", async () => {
    const badCall = (client: ReturnType<typeof createPublicClient>) =>
      client.request({ method: 'eth_getBalance', params: ['0x12', 'latest'] } as never)
    const ours = await failureOf(createEvmHttpTransport(proxyUrl, { retryCount: 0 }), badCall)
    const viems = await failureOf(http(proxyUrl, { retryCount: 0 }), badCall)
    expect(ours).toBeInstanceOf(InvalidParamsRpcError)
    expect(ours.constructor).toBe(viems.constructor)
    const rpc = ours.walk((e) => e instanceof RpcRequestError) as RpcRequestError
    const viemRpc = viems.walk((e) => e instanceof RpcRequestError) as RpcRequestError
    expect(rpc.code).toBe(-32602)
    expect(rpc.code).toBe(viemRpc.code)
    expect(rpc.details).toBe(viemRpc.details)
    expect(describeError(ours)).toBe(describeError(viems))
  })

  test('an RPC error inside a batch fails that call only', async () => {
    const client = createPublicClient({ transport: createEvmHttpTransport(proxyUrl, { retryCount: 0 }) })
    const [good, bad] = await Promise.allSettled([
      client.getChainId(),
      client.request({ method: 'eth_getBalance', params: ['0x12', 'latest'] } as never),
    ])
    expect(seen).toHaveLength(1)
    expect(good).toEqual({ status: 'fulfilled', value: 84532 })
    expect(bad.status === 'rejected' && bad.reason).toBeInstanceOf(InvalidParamsRpcError)
  })

  test('an HTTP 500 surfaces as an HttpRequestError with the status, and viem retries it', async () => {
    modes = ['http-500']
    const ours = await failureOf(createEvmHttpTransport(proxyUrl, { retryCount: 0 }), (c) => c.getChainId())
    modes = ['http-500']
    const viems = await failureOf(http(proxyUrl, { retryCount: 0 }), (c) => c.getChainId())
    const httpError = ours.walk((e) => e instanceof HttpRequestError) as HttpRequestError
    expect(httpError).toBeInstanceOf(HttpRequestError)
    expect(httpError.status).toBe(500)
    expect(httpError.details).toBe(
      (viems.walk((e) => e instanceof HttpRequestError) as HttpRequestError).details,
    )
    expect(classifySendError(ours)).toBe('ambiguous')

    modes = ['http-500']
    seen.length = 0
    const retrying = createPublicClient({ transport: createEvmHttpTransport(proxyUrl, { retryDelay: 1 }) })
    expect(await retrying.getChainId()).toBe(84532)
    expect(seen).toHaveLength(2)
  })

  test('a node that does not answer within the timeout gives a TimeoutError, not resent', async () => {
    modes = ['hang']
    const ours = await failureOf(createEvmHttpTransport(proxyUrl, { retryCount: 0, timeoutMs: 200 }), (c) =>
      c.getChainId(),
    )
    expect(ours.walk((e) => e instanceof TimeoutError)).toBeInstanceOf(TimeoutError)
    expect(classifySendError(ours)).toBe('ambiguous')
    expect(seen).toHaveLength(1)
  })

  test('a kept-alive socket the server closes before answering is retried once, on a new connection', async () => {
    const client = createPublicClient({ transport: createEvmHttpTransport(proxyUrl, { retryCount: 0 }) })
    expect(await client.getChainId()).toBe(84532)
    modes = ['drop']
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBeTypeOf('bigint')
    expect(seen).toHaveLength(3)
    expect(seen[1]?.body).toBe(seen[2]?.body)
    expect(seen[2]?.connection).not.toBe(seen[1]?.connection)

    // Only once: a second drop in a row is the caller's error.
    modes = ['drop', 'drop']
    const error = await failureOf(createEvmHttpTransport(proxyUrl, { retryCount: 0 }), (c) => c.getChainId())
    expect(error.walk((e) => e instanceof HttpRequestError)).toBeInstanceOf(HttpRequestError)
    expect(seen).toHaveLength(5)
  })

  test('a node that refuses batches gets the calls again one by one, and no batch after that', async () => {
    const client = createPublicClient({ transport: createEvmHttpTransport(proxyUrl) })
    modes = ['refuse-batch']
    const both = () => Promise.all([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })])
    expect((await both())[0]).toBe(84532)
    expect(seen.map((s) => s.body.startsWith('['))).toEqual([true, false, false])
    await both()
    expect(seen.slice(3).map((s) => s.body.startsWith('['))).toEqual([false, false])
  })

  test('basic-auth credentials in the URL go as an Authorization header, not in error messages', async () => {
    const withCredentials = proxyUrl.replace('http://', 'http://user:p%40ss@')
    modes = ['http-500']
    let authorization: string | undefined
    proxy.once('request', (request: IncomingMessage) => {
      authorization = request.headers.authorization
    })
    const error = await failureOf(createEvmHttpTransport(withCredentials, { retryCount: 0 }), (c) =>
      c.getChainId(),
    )
    expect(authorization).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`)
    expect(error.message).toContain(proxyUrl)
    expect(error.message).not.toContain('p%40ss')
  })
})
