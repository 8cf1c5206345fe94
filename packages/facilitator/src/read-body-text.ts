import type { IncomingMessage } from 'node:http'
import { AppError, readRequestText } from '@tollgate/core'
import type { Context } from 'hono'

/**
 * Reads a request body as UTF-8 text, refusing one over `limitBytes` with `payload_too_large`
 * (by its Content-Length before reading, else as soon as the bytes read pass the limit).
 *
 * Served by `@hono/node-server` it reads the Node request (`c.env.incoming`) directly: building
 * the Web `Request` and its stream for every body costs about a sixth of a verify's CPU time.
 * Elsewhere (other runtimes, `app.request` in tests, mounted under another app) it reads the Web
 * body stream with core's `readRequestText`, which leaves a refused body for `drainUnreadBody`.
 */
export async function readBodyText(c: Context, limitBytes: number): Promise<string> {
  const declared = Number(c.req.header('Content-Length'))
  if (declared > limitBytes) {
    throw tooLarge(limitBytes)
  }
  const incoming = getNodeIncoming(c)
  return incoming ? readNodeBody(incoming, limitBytes) : readRequestText(c.req.raw, limitBytes)
}

function getNodeIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  // A body something else began reading can't be read again from the Node stream.
  if (!incoming || typeof incoming.on !== 'function' || incoming.readableDidRead) {
    return undefined
  }
  return incoming
}

function readNodeBody(incoming: IncomingMessage, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limitBytes) {
        // Stop reading: @hono/node-server drains the rest after the 413 (bounded in bytes and time),
        // so the connection carries the next request without this reading an endless body.
        incoming.off('data', onData)
        incoming.pause()
        reject(tooLarge(limitBytes))
        return
      }
      chunks.push(chunk)
    }
    incoming.on('data', onData)
    incoming.once('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')))
    incoming.once('error', reject)
  })
}

function tooLarge(limitBytes: number): AppError {
  return new AppError('payload_too_large', {
    context: { limitBytes },
    message: `request body is larger than ${limitBytes} bytes`,
  })
}
