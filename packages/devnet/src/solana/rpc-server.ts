import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { RpcError, RpcErrorCode } from './rpc-error.js'

/** One JSON-RPC method: takes the positional `params` array, returns the `result` (bigints allowed). */
export type RpcHandler = (params: unknown[]) => unknown

/** A running JSON-RPC server. */
export type RpcServer = { url: string; close(): Promise<void> }

type JsonRpcResponse = { jsonrpc: '2.0'; id: unknown } & (
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } }
)

// u64 values (lamports, rentEpoch, supply) exceed 2^53: emit bigints as bare JSON numbers, as the real RPC does.
// Most responses hold none (handlers return safe integers as numbers), so the replacer pass runs only
// when plain JSON.stringify refuses a bigint.
function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof TypeError)) {
      throw error
    }
  }
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `__bigint__${v}` : v)).replace(
    /"__bigint__(\d+)"/g,
    '$1',
  )
}

function toErrorResponse(id: unknown, error: unknown): JsonRpcResponse {
  if (error instanceof RpcError) {
    const data = error.data === undefined ? {} : { data: error.data }
    return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...data } }
  }
  const message = error instanceof Error ? error.message : String(error)
  return {
    jsonrpc: '2.0',
    id,
    error: { code: RpcErrorCode.internalError, message: `Internal error: ${message}` },
  }
}

async function handleCall(
  methods: Record<string, RpcHandler>,
  call: unknown,
): Promise<JsonRpcResponse | undefined> {
  const request = (typeof call === 'object' && call !== null ? call : {}) as Record<string, unknown>
  const id = request.id ?? null
  if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    return toErrorResponse(id, new RpcError(RpcErrorCode.invalidRequest, 'Invalid request'))
  }
  const handler = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined
  if (!handler) {
    return toErrorResponse(id, new RpcError(RpcErrorCode.methodNotFound, 'Method not found'))
  }
  const params = request.params ?? []
  if (!Array.isArray(params)) {
    return toErrorResponse(
      id,
      new RpcError(RpcErrorCode.invalidParams, 'Invalid params: invalid type: map, expected a sequence.'),
    )
  }
  try {
    const result = await handler(params)
    // A request without an id is a notification: run it, answer nothing (JSON-RPC 2.0 §4.1).
    return 'id' in request ? { jsonrpc: '2.0', id, result } : undefined
  } catch (error) {
    return toErrorResponse(id, error)
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () =>
      resolve(
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      ),
    )
    request.on('error', reject)
  })
}

async function respond(
  methods: Record<string, RpcHandler>,
  request: IncomingMessage,
  response: ServerResponse,
) {
  response.setHeader('access-control-allow-origin', '*')
  response.setHeader('access-control-allow-headers', '*')
  if (request.method === 'OPTIONS') {
    response.writeHead(204).end()
    return
  }
  if (request.method === 'GET' && request.url === '/health') {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    return
  }
  if (request.method !== 'POST') {
    response.writeHead(405).end()
    return
  }
  let body: unknown
  try {
    body = JSON.parse(await readBody(request))
  } catch {
    const parseError = toErrorResponse(null, new RpcError(RpcErrorCode.parseError, 'Parse error'))
    sendJson(response, stringifyJson(parseError))
    return
  }
  let payload: unknown
  if (Array.isArray(body)) {
    const results = await Promise.all(body.map((call) => handleCall(methods, call)))
    const answered = results.filter((r) => r !== undefined)
    payload =
      body.length === 0
        ? toErrorResponse(null, new RpcError(RpcErrorCode.invalidRequest, 'Invalid request'))
        : answered
  } else {
    payload = await handleCall(methods, body)
  }
  sendJson(response, payload === undefined ? '' : stringifyJson(payload))
}

// With a Content-Length the body goes out as is; without, Node frames it in chunked encoding.
function sendJson(response: ServerResponse, text: string) {
  response
    .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    .end(text)
}

/** Serves JSON-RPC 2.0 (single and batch requests) over HTTP POST on 127.0.0.1, on an OS-assigned port unless given. */
export async function startRpcServer(methods: Record<string, RpcHandler>, port = 0): Promise<RpcServer> {
  const server = createServer((request, response) => {
    respond(methods, request, response).catch(() => response.writeHead(500).end())
  })
  // Advertised as `Keep-Alive: timeout=30`. With 1 s, fetch (undici, which kit's createSolanaRpc uses)
  // judged the connection too close to expiry to reuse and opened a new one for every request.
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
