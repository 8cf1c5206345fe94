import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'

/** A fetch handler as `@hono/node-server` calls it: the request and its Node bindings (`incoming`). */
export type NodeFetch = (request: Request, env: { incoming: IncomingMessage }) => Response | Promise<Response>

/** A Node `http` request listener (the facilitator serves its hot routes from one). */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void

/**
 * A listening HTTP server: its base URL (`http://127.0.0.1:4020`), how to close it, and `route`,
 * which sends every request under a path prefix straight to another handler.
 */
export type Listening = {
  url: string
  close: () => Promise<void>
  /**
   * Serves `path` and everything under it with `fetch`, which sees paths relative to `path`. The
   * request skips the main handler entirely (its middleware, logging and hono's mount), and the
   * handler gets the Node request, so an app that reads bodies from it (the facilitator) can.
   * With `listener`, the path is served by that Node listener instead of `fetch`.
   */
  route: (path: string, fetch: NodeFetch, listener?: NodeListener) => void
}

/** Serves `fetch` on `host:port` (0 picks a free port); resolves once listening. */
export function listen(fetch: NodeFetch, options: { port: number; host: string }): Promise<Listening> {
  const main = getRequestListener(fetch as never)
  const routes: { prefix: string; listener: NodeListener }[] = []
  const server = createServer((req, res) => {
    const url = req.url ?? '/'
    for (const { prefix, listener } of routes) {
      if (url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`)) {
        req.url = url.slice(prefix.length) || '/'
        if (req.url.startsWith('?')) {
          req.url = `/${req.url}`
        }
        return listener(req, res)
      }
    }
    return main(req, res)
  })
  return new Promise<Listening>((resolvePromise, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo
      resolvePromise({
        url: `http://${options.host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
        route: (path, handler, listener) => {
          routes.push({
            prefix: path.replace(/\/+$/, ''),
            listener: listener ?? getRequestListener(handler as never),
          })
        },
      })
    })
  })
}
