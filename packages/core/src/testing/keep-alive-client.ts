import http from 'node:http'

/** One answer of a {@link KeepAliveClient}: status, whether it came on a reused socket, its body. */
export type KeepAliveAnswer = { status: number; reusedSocket: boolean; connection?: string; body: string }

/** An HTTP/1.1 client with exactly one keep-alive socket, so every request goes after the previous one. */
export type KeepAliveClient = {
  send(
    method: string,
    path: string,
    options?: { body?: Buffer | string; headers?: Record<string, string>; chunked?: boolean },
  ): Promise<KeepAliveAnswer>
  /** Sockets the client opened so far (1 while every answer kept the connection alive). */
  readonly socketsOpened: number
  close(): void
}

/**
 * A client for keep-alive tests (docs/input-limits.md "Keep-alive"): one `node:http` Agent socket,
 * bodies sent with Content-Length or chunked in 16 KiB writes. A server that answers early and then
 * hangs up fails the next request with "socket hang up".
 */
export function createKeepAliveClient(baseUrl: string): KeepAliveClient {
  const url = new URL(baseUrl)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  let socketsOpened = 0
  return {
    get socketsOpened() {
      return socketsOpened
    },
    send(method, path, options = {}) {
      const body = options.body === undefined ? undefined : Buffer.from(options.body)
      const headers: Record<string, string> = { ...options.headers }
      if (body && !options.chunked) {
        headers['content-length'] = String(body.length)
      }
      return new Promise((resolve, reject) => {
        const request = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: `${url.pathname.replace(/\/$/, '')}${path}`,
            method,
            agent,
            headers,
          },
          (response) => {
            const chunks: Buffer[] = []
            response.on('data', (chunk: Buffer) => chunks.push(chunk))
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                reusedSocket: request.reusedSocket,
                ...(response.headers.connection ? { connection: response.headers.connection } : {}),
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            )
          },
        )
        request.on('socket', (socket) => {
          if (!request.reusedSocket) {
            socketsOpened += 1
          }
          socket.setNoDelay(true)
        })
        request.on('error', reject)
        if (body && options.chunked) {
          for (let at = 0; at < body.length; at += 16 * 1024) {
            request.write(body.subarray(at, at + 16 * 1024))
          }
          request.end()
        } else {
          request.end(body)
        }
      })
    },
    close() {
      agent.destroy()
    },
  }
}
