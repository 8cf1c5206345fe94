import { drainRequestBody, isUndrainable } from '@tollgate/core'

/**
 * After an answer the handler never saw (a 402, a 502 from the facilitator), keeps the client's
 * keep-alive connection usable: the request body nobody read is drained in the background, or the
 * answer gets `Connection: close` when the declared body is too large to drain. Under
 * `@hono/node-server` with the Node request in `env.incoming`, the server drains it itself.
 */
export function releaseUnreadBody(request: Request, response: Response, env?: unknown): void {
  if (isUndrainable(request)) {
    response.headers.set('Connection', 'close')
    return
  }
  if ((env as { incoming?: unknown } | undefined)?.incoming === undefined) {
    void drainRequestBody(request)
  }
}
