// @tollgate/core/http-post: the keep-alive JSON POST under the EVM and Solana RPC clients. A subpath
// of its own (Node only, on undici), so the main entry stays free of it.
import type { ConnectionOptions } from 'node:tls'
import { errors, Pool } from 'undici'

export { type BatchQueue, type BatchQueueOptions, createBatchQueue } from './batch-queue.js'

/** An HTTP response with its body as text. */
export type HttpResponse = {
  status: number
  statusText: string
  headers: Record<string, string>
  text: string
}

/** A request that got no (complete) answer within `timeoutMs`; it is never resent. */
export class HttpPostTimeoutError extends Error {
  override name = 'HttpPostTimeoutError'
}

/** A response whose body passed `maxResponseBytes`; the connection is dropped, never read to the end. */
export class HttpPostResponseTooLargeError extends Error {
  override name = 'HttpPostResponseTooLargeError'
}

/** Default of {@link HttpPostOptions.maxResponseBytes}: 64 MiB, room for a large `eth_getLogs` or `getProgramAccounts`. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024

/** Options of {@link createHttpPost}. */
export type HttpPostOptions = {
  headers?: Record<string, string> | undefined
  timeoutMs: number
  /** TLS options for https URLs (a private CA, a client certificate). */
  tls?: Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized'> | undefined
  /** Keep-alive connections to the endpoint (default 8). */
  connections?: number
  /**
   * Largest response body accepted, in bytes (default {@link DEFAULT_MAX_RESPONSE_BYTES}). A node
   * that answers more (a misbehaving or hostile endpoint) gets its connection closed and the call
   * fails with {@link HttpPostResponseTooLargeError}, so one answer cannot take the process's memory.
   */
  maxResponseBytes?: number
}

/**
 * POSTs JSON bodies to one endpoint over kept-alive connections (an undici `Pool`, driven through
 * its dispatcher API: none of `fetch`'s Request/stream machinery per call, which was most of our
 * side's CPU per verify at concurrency 1) and resolves with the whole response. A request that
 * fails at the socket before any answer (the server closed a kept-alive connection as it was
 * reused) is sent once more: the JSON-RPC calls sent through it are safe to repeat (reads,
 * simulations, and a signed transaction, which the chain lands once). A timeout is not retried.
 */
export function createHttpPost(
  url: string,
  options: HttpPostOptions,
): (body: string) => Promise<HttpResponse> {
  const target = new URL(url)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new TypeError(`unsupported RPC URL protocol ${target.protocol}`)
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json; charset=utf-8',
  }
  if (target.username || target.password) {
    const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/[\r\n:]/.test(name) || /[\r\n]/.test(value)) {
      throw new TypeError(`invalid HTTP header ${JSON.stringify(name)}`)
    }
    headers[name.toLowerCase()] = value
  }
  const pool = new Pool(target.origin, {
    connections: options.connections ?? 8,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    ...(options.tls ? { connect: { ...options.tls } } : {}),
  })
  const path = `${target.pathname}${target.search}`
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES

  // The dispatcher API hands the body over as buffers: no Readable stream per response, which was
  // most of `pool.request`'s cost here.
  const dispatch = (body: string) =>
    new Promise<HttpResponse>((resolve, reject) => {
      const chunks: Buffer[] = []
      let received = 0
      let abort: (error?: Error) => void = () => {}
      let head: Omit<HttpResponse, 'text'> = { status: 0, statusText: '', headers: {} }
      pool.dispatch(
        { origin: target.origin, path, method: 'POST', headers, body },
        {
          onConnect(abortRequest) {
            abort = abortRequest
          },
          onHeaders(status, rawHeaders, _resume, statusText) {
            const responseHeaders: Record<string, string> = {}
            for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
              const name = String(rawHeaders[i]).toLowerCase()
              const value = String(rawHeaders[i + 1])
              responseHeaders[name] = name in responseHeaders ? `${responseHeaders[name]}, ${value}` : value
            }
            head = { status, statusText: statusText || (STATUS_TEXT[status] ?? ''), headers: responseHeaders }
            const declared = Number(responseHeaders['content-length'])
            if (declared > maxResponseBytes) {
              abort(tooLarge(declared))
              return false
            }
            return true
          },
          onData(chunk) {
            received += chunk.length
            if (received > maxResponseBytes) {
              chunks.length = 0
              abort(tooLarge(received))
              return false
            }
            chunks.push(chunk)
            return true
          },
          onComplete() {
            resolve({ ...head, text: Buffer.concat(chunks).toString('utf8') })
          },
          onError(error) {
            reject(error)
          },
        },
      )
    })

  const tooLarge = (bytes: number) =>
    new HttpPostResponseTooLargeError(
      `RPC response of ${bytes} bytes or more passes the limit of ${maxResponseBytes} bytes`,
    )

  const send = async (body: string, retry: boolean): Promise<HttpResponse> => {
    try {
      return await dispatch(body)
    } catch (error) {
      if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
        throw new HttpPostTimeoutError(`RPC request timed out after ${options.timeoutMs} ms`, {
          cause: error,
        })
      }
      if (retry && error instanceof errors.SocketError) {
        return send(body, false)
      }
      throw error
    }
  }
  return (body) => send(body, true)
}

// undici gives the status code only; kit's and viem's HTTP errors carry the text.
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}
