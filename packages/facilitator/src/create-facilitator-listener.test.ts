import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createFacilitator, type Facilitator } from './create-facilitator.js'
import { createFacilitatorApp, type FacilitatorAppOptions } from './create-facilitator-app.js'
import { createFacilitatorListener } from './create-facilitator-listener.js'
import type { Logger } from './logger.js'
import { buildFakeRequest, createFakeScheme } from './testing/create-fake-scheme.js'
import { type ServedForTests, serveForTests } from './testing/serve-for-tests.js'

function serveListener(facilitator: Facilitator, options: FacilitatorAppOptions): Promise<ServedForTests> {
  const server = createServer(createFacilitatorListener(facilitator, options)).listen(0, '127.0.0.1')
  return new Promise((resolve) =>
    server.once('listening', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      }),
    ),
  )
}

type Call = {
  method: string
  path: string
  body?: string
  headers?: Record<string, string>
  chunked?: boolean
}

async function call(url: string, { method, path, body, headers = {}, chunked }: Call) {
  const stream =
    chunked && body !== undefined
      ? new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(body))
            controller.close()
          },
        })
      : body
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(stream !== undefined ? { body: stream, duplex: 'half' } : {}),
  } as RequestInit)
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    wwwAuthenticate: response.headers.get('www-authenticate'),
    body: await response.text(),
  }
}

describe('createFacilitatorListener', () => {
  const valid = JSON.stringify(buildFakeRequest())
  const auth = { authorization: 'Bearer secret' }
  const options = { authToken: 'secret', bodyLimitBytes: 4096 }
  // Each call goes to a fresh facilitator pair, so settle answers (transaction hashes) line up.
  let served: { listener: ServedForTests; app: ServedForTests }[] = []
  const both = async () => {
    const pair = {
      listener: await serveListener(createFacilitator({ schemes: [createFakeScheme()] }), options),
      app: await serveForTests(
        createFacilitatorApp(createFacilitator({ schemes: [createFakeScheme()] }), options).fetch,
      ),
    }
    served.push(pair)
    return pair
  }
  beforeAll(() => {
    served = []
  })
  afterAll(async () => {
    for (const pair of served) {
      await pair.listener.close()
      await pair.app.close()
    }
  })

  const cases: Record<string, Call> = {
    'valid verify': { method: 'POST', path: '/verify', body: valid, headers: auth },
    'valid settle': { method: 'POST', path: '/settle', body: valid, headers: auth },
    'invalid payment': {
      method: 'POST',
      path: '/verify',
      body: JSON.stringify(buildFakeRequest({ payload: { from: '0x0' } })),
      headers: auth,
    },
    'malformed JSON': { method: 'POST', path: '/verify', body: '{"x402Version": 2,', headers: auth },
    'empty body': { method: 'POST', path: '/settle', body: '', headers: auth },
    'missing fields': { method: 'POST', path: '/verify', body: '{"x402Version":2}', headers: auth },
    'JSON hazard (NUL)': {
      method: 'POST',
      path: '/verify',
      body: '{"x402Version":2,"a":"\\u0000"}',
      headers: auth,
    },
    'no token': { method: 'POST', path: '/verify', body: valid },
    'wrong token': {
      method: 'POST',
      path: '/settle',
      body: valid,
      headers: { authorization: 'Bearer nope' },
    },
    'over the limit': { method: 'POST', path: '/verify', body: 'x'.repeat(5000), headers: auth },
    'chunked over the limit': {
      method: 'POST',
      path: '/verify',
      body: 'x'.repeat(5000),
      headers: auth,
      chunked: true,
    },
    'chunked valid': { method: 'POST', path: '/verify', body: valid, headers: auth, chunked: true },
    'query string': { method: 'POST', path: '/verify?x=1', body: valid, headers: auth },
    'GET verify': { method: 'GET', path: '/verify', headers: auth },
    supported: { method: 'GET', path: '/supported', headers: auth },
    health: { method: 'GET', path: '/health' },
    'unknown route': { method: 'POST', path: '/verify/', body: valid, headers: auth },
  }

  for (const [name, request] of Object.entries(cases)) {
    test(`behavior: ${name} is answered as the hono app answers it`, async () => {
      const { listener, app } = await both()
      const fromApp = await call(app.url, request)
      expect(await call(listener.url, request)).toEqual(fromApp)
    })
  }

  test('behavior: a valid verify is 200 JSON with the verdict', async () => {
    const { listener } = await both()
    const answer = await call(listener.url, cases['valid verify'] as Call)
    expect(answer).toMatchObject({ status: 200, contentType: 'application/json' })
    expect(JSON.parse(answer.body)).toEqual({
      isValid: true,
      payer: '0x00000000000000000000000000000000000000bb',
    })
  })

  test('behavior: unexpected errors are a logged 500 with the generic body', async () => {
    const errors: unknown[] = []
    const logger: Logger = { debug() {}, info() {}, warn() {}, error: (fields) => errors.push(fields) }
    const scheme = createFakeScheme()
    const broken = {
      ...scheme,
      verify: async () => {
        throw new TypeError('bug')
      },
    }
    const listener = await serveListener(createFacilitator({ schemes: [broken] }), { logger })
    try {
      const answer = await call(listener.url, { method: 'POST', path: '/verify', body: valid })
      expect(answer.status).toBe(500)
      expect(JSON.parse(answer.body)).toEqual({ error: 'internal_error', message: 'internal error' })
      expect(errors).toHaveLength(1)
    } finally {
      await listener.close()
    }
  })
})
