import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { createPaymentGate } from './create-payment-gate.js'
import type { PaymentMiddlewareOptions } from './types.js'

/** The parts of an Express request the middleware reads (structural: no runtime dependency on express). */
export type ExpressLikeRequest = IncomingMessage & { originalUrl?: string; protocol?: string }

/** The parts of an Express response it uses; the payment lands in `res.locals.payment`. */
export type ExpressLikeResponse = ServerResponse & { locals: Record<string, unknown> }

/** An Express-style middleware function. */
export type ExpressLikeMiddleware = (
  req: ExpressLikeRequest,
  res: ExpressLikeResponse,
  next: (error?: unknown) => void,
) => void

/**
 * Express (4 or 5) middleware with the flow of {@link paymentRequired}: the payment is in
 * `res.locals.payment`. The handler's response is held back (buffered) until settlement succeeds,
 * so a failed settlement can still replace it with a 402.
 */
export function paymentRequiredExpress(options: PaymentMiddlewareOptions): ExpressLikeMiddleware {
  const gate = createPaymentGate(options)
  return (req, res, next) => {
    const path = (req.originalUrl ?? req.url ?? '/').split('?')[0] ?? '/'
    const host = req.headers.host ?? 'localhost'
    const url = `${req.protocol ?? 'http'}://${host}${req.originalUrl ?? req.url ?? '/'}`
    const headers = {
      get(name: string): string | null {
        const value = req.headers[name.toLowerCase()]
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value
      },
    }
    let passedThrough = false
    gate
      .handle({ method: req.method ?? 'GET', url, path, headers }, (payment) => {
        if (!payment) {
          passedThrough = true
          next()
          return Promise.resolve(new Response(null))
        }
        res.locals.payment = payment
        return captureResponse(res, next)
      })
      .then(async (response) => {
        if (!passedThrough) {
          await writeResponse(res, response)
        }
      })
      .catch(next)
  }
}

type Chunk = string | Uint8Array

// Runs the rest of the Express chain with `writeHead`/`write`/`end` intercepted, and resolves with
// what it answered once it calls `end()`. The originals are restored before anything is sent.
function captureResponse(res: ExpressLikeResponse, next: (error?: unknown) => void): Promise<Response> {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end }
  const chunks: Buffer[] = []
  const toBuffer = (chunk: Chunk, encoding?: unknown): Buffer =>
    typeof chunk === 'string'
      ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
      : Buffer.from(chunk)
  return new Promise<Response>((resolve) => {
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      res.statusCode = status
      const headers = rest.find((arg) => typeof arg === 'object' && arg !== null) as
        | OutgoingHttpHeaders
        | undefined
      for (const [name, value] of Object.entries(headers ?? {})) {
        if (value !== undefined) {
          res.setHeader(name, value)
        }
      }
      return res
    }) as ExpressLikeResponse['writeHead']
    res.write = ((chunk: Chunk, encoding?: unknown, callback?: unknown) => {
      chunks.push(toBuffer(chunk, encoding))
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') {
        queueMicrotask(() => done())
      }
      return true
    }) as ExpressLikeResponse['write']
    res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') {
        chunks.push(toBuffer(chunk as Chunk, encoding))
      }
      Object.assign(res, original)
      const done = [chunk, encoding, callback].find((arg) => typeof arg === 'function')
      const headers = new Headers()
      for (const [name, value] of Object.entries(res.getHeaders())) {
        for (const item of Array.isArray(value) ? value : [value]) {
          if (item !== undefined) {
            headers.append(name, String(item))
          }
        }
      }
      const body = [204, 205, 304].includes(res.statusCode) ? null : Buffer.concat(chunks)
      resolve(new Response(body, { status: res.statusCode, headers }))
      if (typeof done === 'function') {
        queueMicrotask(() => done())
      }
      return res
    }) as ExpressLikeResponse['end']
    next()
  })
}

async function writeResponse(res: ExpressLikeResponse, response: Response): Promise<void> {
  for (const name of res.getHeaderNames()) {
    res.removeHeader(name)
  }
  res.statusCode = response.status
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') {
      res.setHeader(name, value)
    }
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) {
    res.setHeader('set-cookie', cookies)
  }
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined
  res.end(body)
}
