import { AppError } from './app-error.js'

/** How much of an unread request body {@link drainRequestBody} discards before it gives up (16 MiB). */
export const MAX_DRAIN_BYTES = 16 * 1024 * 1024

/**
 * Reads a Fetch `Request`'s body as UTF-8 text, refusing one over `limitBytes` with
 * `payload_too_large` (by its Content-Length before reading, else once the bytes read pass the
 * limit). A refused body is left unread, not cancelled, so {@link drainRequestBody} can still
 * empty it and the connection stays usable (docs/input-limits.md "Keep-alive").
 */
export async function readRequestText(request: Request, limitBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length'))
  if (declared > limitBytes) {
    throw tooLarge(limitBytes)
  }
  if (!request.body) {
    return ''
  }
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) {
      break
    }
    size += value.byteLength
    if (size > limitBytes) {
      reader.releaseLock()
      throw tooLarge(limitBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, size).toString('utf8')
}

/**
 * Reads and discards whatever is left of a request body nobody read (a request answered 401, 413
 * or 415 before its body), so an HTTP/1.1 keep-alive connection can carry the next request. Gives
 * up past `maxBytes` (default {@link MAX_DRAIN_BYTES}) by cancelling the body, which closes the
 * connection. Never throws; does nothing when the body is absent or being read.
 */
export async function drainRequestBody(request: Request, options: { maxBytes?: number } = {}): Promise<void> {
  const body = request.body
  if (!body || body.locked) {
    return
  }
  const maxBytes = options.maxBytes ?? MAX_DRAIN_BYTES
  const reader = body.getReader()
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) {
        return
      }
      size += value.byteLength
      if (size > maxBytes) {
        await reader.cancel()
        return
      }
    }
  } catch {
    // The client went away: nothing left to keep usable.
  }
}

/**
 * Whether an answer to `request` should carry `Connection: close`: its declared body is larger than
 * {@link drainRequestBody} will read, so the connection cannot be reused after an early answer.
 */
export function isUndrainable(request: Pick<Request, 'headers'>, maxBytes = MAX_DRAIN_BYTES): boolean {
  return Number(request.headers.get('content-length')) > maxBytes
}

function tooLarge(limitBytes: number): AppError<'payload_too_large'> {
  return new AppError('payload_too_large', {
    context: { limitBytes },
    message: `request body is larger than ${limitBytes} bytes`,
  })
}
