import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request a {@link WebhookReceiver} got. */
export type ReceivedWebhook = { path: string; headers: Record<string, string>; body: string }

/** A local HTTP server standing in for a merchant's webhook endpoint. */
export type WebhookReceiver = {
  /** `http://127.0.0.1:<port>` */
  url: string
  received: ReceivedWebhook[]
  /** Decides each answer (default 200 "ok"). */
  respond: (request: ReceivedWebhook) => { status: number; body?: string }
  close(): Promise<void>
}

/** Starts a {@link WebhookReceiver} on a free loopback port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    respond: () => ({ status: 200, body: 'ok' }),
    close: async () => {},
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') {
          headers[name] = value
        }
      }
      const request = { path: req.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') }
      receiver.received.push(request)
      const answer = receiver.respond(request)
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return receiver
}
