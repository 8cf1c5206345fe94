import { createDevnetError } from '../errors.js'

/** One JSON-RPC call: method and positional params. */
export type RpcCall = { method: string; params?: unknown[] }

/** A minimal JSON-RPC client for anvil's setup and cheat methods, with batching. */
export type JsonRpc = {
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>
  /** Sends all calls in one HTTP request; results in call order. Throws on the first error. */
  batch(calls: RpcCall[]): Promise<unknown[]>
}

type RpcResponse = { id: number; result?: unknown; error?: { code: number; message: string; data?: unknown } }

/** Creates a {@link JsonRpc} for `url`; errors carry `network` so a failing setup step says where. */
export function createJsonRpc(url: string, network: string): JsonRpc {
  const post = async (body: unknown): Promise<unknown> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (!response.ok) {
      throw createDevnetError(`${network}: JSON-RPC HTTP ${response.status}`, { network })
    }
    return response.json()
  }
  const unwrap = (call: RpcCall, response: RpcResponse | undefined): unknown => {
    if (!response) {
      throw createDevnetError(`${network}: no JSON-RPC response to ${call.method}`, { network })
    }
    if (response.error) {
      const detail = response.error.data === undefined ? '' : ` (${JSON.stringify(response.error.data)})`
      throw createDevnetError(`${network}: ${call.method} failed: ${response.error.message}${detail}`, {
        network,
      })
    }
    return response.result
  }
  return {
    request: async <T>(method: string, params: unknown[] = []) => {
      const response = (await post({ jsonrpc: '2.0', id: 0, method, params })) as RpcResponse
      return unwrap({ method, params }, response) as T
    },
    batch: async (calls) => {
      if (calls.length === 0) {
        return []
      }
      const body = calls.map((call, id) => ({
        jsonrpc: '2.0',
        id,
        method: call.method,
        params: call.params ?? [],
      }))
      const responses = (await post(body)) as RpcResponse[]
      const byId = new Map(responses.map((r) => [r.id, r]))
      return calls.map((call, id) => unwrap(call, byId.get(id)))
    },
  }
}
