// A JSON-RPC pass-through in front of a node, run as a child process of a benchmark (so its CPU is
// not the measured process's): `node --import tsx counting-rpc-proxy.ts <target-url>`. It sends
// `{ url }` over IPC once listening and answers every IPC message with its counts: every
// eth_sendRawTransaction that reached the node, and every answer to one that is a nonce error
// ("nonce too low/high", "replacement transaction underpriced", "already known": a nonce taken).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const target = process.argv[2] ?? ''
const counts = { requests: 0, sendRawTransaction: 0, nonceErrors: 0, otherSendErrors: 0 }
const isNonceError = (message: string) => /nonce|underpriced|already known/i.test(message)

const server = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', async () => {
    const body = Buffer.concat(chunks).toString()
    const calls = [JSON.parse(body)].flat() as { id: unknown; method: string }[]
    counts.requests += calls.length
    const sends = new Set(calls.filter((c) => c.method === 'eth_sendRawTransaction').map((c) => c.id))
    counts.sendRawTransaction += sends.size
    try {
      const answer = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      const text = await answer.text()
      if (sends.size > 0) {
        for (const reply of [JSON.parse(text)].flat() as { id: unknown; error?: { message: string } }[]) {
          if (sends.has(reply.id) && reply.error) {
            if (isNonceError(reply.error.message)) {
              counts.nonceErrors++
            } else {
              counts.otherSendErrors++
            }
          }
        }
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text)
    } catch (error) {
      res.writeHead(502).end(String(error))
    }
  })
})
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  process.send?.({ url: `http://127.0.0.1:${port}` })
})
process.on('message', () => process.send?.({ counts }))
process.on('disconnect', () => server.close(() => process.exit(0)))
