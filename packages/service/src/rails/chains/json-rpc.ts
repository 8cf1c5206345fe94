import { AppError } from '@tollgate/core'
import { createEvmHttpTransport } from '@tollgate/evm'

/** The one RPC capability the watchers need: a JSON-RPC request (a fake is one function). */
export type JsonRpc = { request(method: string, params: unknown[]): Promise<unknown> }

/**
 * A JSON-RPC client of `rpcUrl` over @tollgate/evm's undici transport (viem errors, keep-alive);
 * requests issued in the same event-loop turn go out as one batch. `onRequest` sees every method called (benchmarks count them).
 */
export function createJsonRpc(
  rpcUrl: string,
  options: { network: string; onRequest?: (method: string) => void },
): JsonRpc {
  const transport = createEvmHttpTransport(rpcUrl, { retryCount: 1, timeoutMs: 15_000 })({})
  return {
    request: async (method, params) => {
      options.onRequest?.(method)
      try {
        return await transport.request({ method, params } as never)
      } catch (cause) {
        throw new AppError('rpc_failed', { context: { network: options.network, method }, cause })
      }
    },
  }
}
