import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A JSON-RPC pass-through that records every method it forwards (single and batch requests). */
export type RpcRecorder = { url: string; methods: string[]; close(): Promise<void> }

/**
 * Serves on 127.0.0.1 and forwards each POST body to `upstreamUrl` unchanged, recording the methods:
 * put it between a fork and its upstream to see what the fork asks for (a fork must only read).
 */
export async function startRpcRecorder(upstreamUrl: string): Promise<RpcRecorder> {
  const methods: string[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      try {
        const parsed = JSON.parse(body) as { method?: unknown } | { method?: unknown }[]
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          methods.push(String(call.method))
        }
        const upstream = await fetch(upstreamUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        response.writeHead(upstream.status, { 'content-type': 'application/json' })
        response.end(await upstream.text())
      } catch (error) {
        response.writeHead(502, { 'content-type': 'text/plain' })
        response.end(String(error))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Whether a JSON-RPC method only reads chain state (what a fork may ask its upstream). */
export function isReadOnlyRpcMethod(method: string): boolean {
  return /^(eth_(chainId|blockNumber|getBlockBy(Number|Hash)|getAccountInfo|getBalance|getCode|getStorageAt|getTransactionCount|getTransactionBy\w+|getTransactionReceipt|getBlockReceipts|call|estimateGas|gasPrice|feeHistory|maxPriorityFeePerGas|getLogs|getProof)|net_version|web3_clientVersion)$/.test(
    method,
  )
}
