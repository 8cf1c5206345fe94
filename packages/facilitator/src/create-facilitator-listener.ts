import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import { AppError } from '@tollgate/core'
import type { Facilitator } from './create-facilitator.js'
import { createFacilitatorApp, type FacilitatorAppOptions } from './create-facilitator-app.js'
import { getErrorStatus, toErrorBody } from './errors.js'
import { getCallerId } from './get-caller-id.js'
import { silentLogger } from './logger.js'
import { parseFacilitatorRequest } from './parse-facilitator-request.js'

/** A Node `http` request listener. */
export type NodeRequestListener = (req: IncomingMessage, res: ServerResponse) => void

// Bodies this listener validated with parseFacilitatorRequest: the facilitator skips a second zod pass.
const PARSED = { parsed: true } as const

/**
 * The facilitator's HTTP API as a Node request listener: the same answers as
 * {@link createFacilitatorApp}, with `POST /verify` and `POST /settle` served straight from the
 * Node request and response. Building hono's Web `Request`, its context and a Web `Response` for
 * every call cost about a fifth of a verify's CPU time (docs/facilitator.md, "The facilitator as
 * `npm start` serves it"). Only a request with nothing unusual takes that path: exact path,
 * `Content-Length` within the body limit (no chunked body) and, when a token is configured, the
 * right bearer token. Everything else (other routes, 401, 413, chunked bodies, query strings)
 * goes to the hono app, which answers and drains as before.
 */
export function createFacilitatorListener(
  facilitator: Facilitator,
  options: FacilitatorAppOptions = {},
): NodeRequestListener {
  const logger = options.logger ?? silentLogger
  const limitBytes = options.bodyLimitBytes ?? 64 * 1024
  const expected = options.authToken === undefined ? undefined : digest(options.authToken)
  // With a token every authorized request is the token's: one caller, computed once.
  const tokenCaller = getCallerId(options.authToken, undefined)
  const fallback = getRequestListener(createFacilitatorApp(facilitator, options).fetch)
  const handlers: Record<string, (body: unknown, caller: string | undefined) => Promise<unknown>> = {
    '/verify': (body, caller) =>
      facilitator.verify(parseFacilitatorRequest(body), { ...PARSED, ...(caller ? { caller } : {}) }),
    '/settle': (body, caller) =>
      facilitator.settle(parseFacilitatorRequest(body), { ...PARSED, ...(caller ? { caller } : {}) }),
  }
  const authorized = (req: IncomingMessage) => {
    if (!expected) {
      return true
    }
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')
    return match?.[1] !== undefined && timingSafeEqual(digest(match[1].trim()), expected)
  }
  return (req, res) => {
    const handle = req.method === 'POST' && req.url !== undefined ? handlers[req.url] : undefined
    const declared = Number(req.headers['content-length'])
    if (!handle || !(declared >= 0 && declared <= limitBytes) || !authorized(req)) {
      fallback(req, res)
      return
    }
    readBody(req, declared)
      .then((text) => {
        let body: unknown
        try {
          body = JSON.parse(text)
        } catch (cause) {
          throw new AppError('invalid_json', { cause, message: 'the request body is not valid JSON' })
        }
        return handle(body, tokenCaller ?? getCallerId(undefined, req.socket.remoteAddress))
      })
      .then(
        (answer) => send(res, 200, answer),
        (error: unknown) => {
          const { status } = getErrorStatus(error)
          if (status >= 500) {
            logger.error({ err: error, method: req.method, path: req.url }, 'facilitator request failed')
          }
          send(res, status, toErrorBody(error))
        },
      )
  }
}

// Node's parser delivers exactly Content-Length bytes (checked against the limit before reading).
function readBody(req: IncomingMessage, length: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.once('end', () =>
      resolve(
        chunks.length === 1
          ? (chunks[0] as Buffer).toString('utf8')
          : Buffer.concat(chunks, length).toString('utf8'),
      ),
    )
    req.once('error', reject)
  })
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) {
    return
  }
  const text = JSON.stringify(body)
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) })
  res.end(text)
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
