import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  address,
  type Base64EncodedWireTransaction,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
} from '@solana/kit'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSolanaRpcClient } from '../src/index.js'

type Call = { jsonrpc: string; id: unknown; method: string; params: unknown[] }

// A JSON-RPC server that logs each HTTP body: getSlot answers 7, getBalance a u64 above 2^53
// (as the real RPC writes it, a bare number), anything else is -32602.
let server: Server
let url: string
const bodies: unknown[] = []
const answer = (call: Call) => {
  if (call.method === 'getSlot') {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":7}`
  }
  if (call.method === 'simulateTransaction') {
    // Digit runs inside strings stay strings; a long value becomes a bigint.
    const units = call.params[0] === 'long' ? '9007199254740993' : '6200'
    const logs = [
      'Program ComputeBudget111111111111111111111111111111 invoke [1]',
      'Program log: n: 12345678901234567890',
    ]
    return `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":{"context":{"slot":7},"value":{"err":null,"logs":${JSON.stringify(logs)},"unitsConsumed":${units}}}}`
  }
  if (call.method === 'getBalance') {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":{"context":{"slot":7},"value":9007199254740993}}`
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"error":{"code":-32602,"message":"Invalid params: nope"}}`
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[]
      bodies.push(body)
      const text = Array.isArray(body) ? `[${[...body].reverse().map(answer).join(',')}]` : answer(body)
      response.writeHead(200, { 'content-type': 'application/json' }).end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('createSolanaRpcClient', () => {
  test('default: concurrent calls go out as one batch and each gets its own answer', async () => {
    const rpc = createSolanaRpcClient(url)
    bodies.length = 0
    const wallet = address('3d9ieH6kLtkXVaeMvW5G6q21EfLLPfno1U3McGSkwpBm')
    const [slot, balance, refused] = await Promise.all([
      rpc.getSlot().send(),
      rpc.getBalance(wallet).send(),
      rpc
        .getEpochInfo()
        .send()
        .catch((e: unknown) => e),
    ])
    expect(slot).toBe(7n)
    // 2^53 + 1 survives: long integers are parsed as bigint.
    expect(balance.value).toBe(9007199254740993n)
    expect(isSolanaError(refused, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)).toBe(true)
    expect(bodies).toHaveLength(1)
    expect((bodies[0] as Call[]).map((c) => c.method)).toEqual(['getSlot', 'getBalance', 'getEpochInfo'])
  })

  test('behavior: a lone call is a plain request; maxBatchRequests splits batches', async () => {
    bodies.length = 0
    expect(await createSolanaRpcClient(url).getSlot().send()).toBe(7n)
    expect(Array.isArray(bodies[0])).toBe(false)

    bodies.length = 0
    const rpc = createSolanaRpcClient(url, { maxBatchRequests: 2 })
    await Promise.all(Array.from({ length: 5 }, () => rpc.getSlot().send()))
    expect(bodies.map((b) => (Array.isArray(b) ? b.length : 1))).toEqual([2, 2, 1])
  })

  test('behavior: long digit runs inside strings stay strings, long integers become bigints', async () => {
    const rpc = createSolanaRpcClient(url)
    const simulate = (transaction: string) =>
      rpc.simulateTransaction(transaction as Base64EncodedWireTransaction, { encoding: 'base64' }).send()
    for (const [transaction, units] of [
      ['short', 6200n],
      ['long', 9007199254740993n],
    ] as const) {
      const { value } = await simulate(transaction)
      expect(value.unitsConsumed).toBe(units)
      expect(value.logs).toEqual([
        'Program ComputeBudget111111111111111111111111111111 invoke [1]',
        'Program log: n: 12345678901234567890',
      ])
    }
  })

  test('behavior: an HTTP error rejects every call of the batch', async () => {
    const rpc = createSolanaRpcClient(`${url.replace(/:\d+$/, ':1')}`)
    const results = await Promise.allSettled([rpc.getSlot().send(), rpc.getSlot().send()])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
  })
})

describe('createSolanaRpcClient against a node without batches', () => {
  // Answers single calls; a batch gets `refusal` (one JSON-RPC error object, or an HTTP status).
  const startNoBatchServer = async (refusal: 'error-object' | 413) => {
    const log: string[] = []
    const noBatch = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (c: Buffer) => chunks.push(c))
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[]
        log.push(Array.isArray(body) ? 'batch' : 'single')
        if (!Array.isArray(body)) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(answer(body))
        } else if (refusal === 413) {
          response.writeHead(413).end('batch requests are not allowed on this plan')
        } else {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}',
            )
        }
      })
    })
    await new Promise<void>((resolve) => noBatch.listen(0, '127.0.0.1', resolve))
    return {
      url: `http://127.0.0.1:${(noBatch.address() as AddressInfo).port}`,
      log,
      close: () => {
        noBatch.closeAllConnections()
        return new Promise((resolve) => noBatch.close(resolve))
      },
    }
  }

  test.each(['error-object', 413] as const)(
    'behavior: a refused batch (%s) is resent call by call, then batching stops',
    async (refusal) => {
      const node = await startNoBatchServer(refusal)
      try {
        const rpc = createSolanaRpcClient(node.url)
        expect(await Promise.all([rpc.getSlot().send(), rpc.getSlot().send()])).toEqual([7n, 7n])
        expect(node.log).toEqual(['batch', 'single', 'single'])
        node.log.length = 0
        expect(await Promise.all([rpc.getSlot().send(), rpc.getSlot().send()])).toEqual([7n, 7n])
        expect(node.log).toEqual(['single', 'single'])
      } finally {
        await node.close()
      }
    },
  )
})
