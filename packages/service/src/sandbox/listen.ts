import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'

/** A listening HTTP server: its base URL (`http://127.0.0.1:4020`) and how to close it. */
export type Listening = { url: string; close: () => Promise<void> }

/** Serves `fetch` on `host:port` (0 picks a free port); resolves once listening. */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { port: number; host: string },
): Promise<Listening> {
  return new Promise<Listening>((resolvePromise, reject) => {
    const server = serve({ fetch, port: options.port, hostname: options.host }, (info: AddressInfo) => {
      resolvePromise({
        url: `http://${options.host}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            if ('closeAllConnections' in server) {
              server.closeAllConnections()
            }
          }),
      })
    })
    server.once('error', reject)
  })
}
