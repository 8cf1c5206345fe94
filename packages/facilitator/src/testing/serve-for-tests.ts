import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'

/** A Fetch handler served on a free loopback port: its base URL and how to stop it. */
export type ServedForTests = { url: string; close: () => Promise<void> }

/**
 * Serves `fetch` with `@hono/node-server` on 127.0.0.1 and a free port, for tests that need a real
 * socket (keep-alive behaviour). `close()` also ends idle keep-alive connections.
 */
export async function serveForTests(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
): Promise<ServedForTests> {
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        if ('closeAllConnections' in server) {
          server.closeAllConnections()
        }
      }),
  }
}
