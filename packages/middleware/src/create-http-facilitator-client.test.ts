import { isAppError, type PaymentPayload, type PaymentRequirements } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { createHttpFacilitatorClient } from './create-http-facilitator-client.js'

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x2222222222222222222222222222222222222222',
  maxTimeoutSeconds: 300,
  extra: { name: 'USDC', version: '2' },
}
const payment: PaymentPayload = { x402Version: 2, accepted: requirements, payload: { signature: '0x' } }
const request = { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements }

type Call = { url: string; init: RequestInit }

function fakeFetch(answer: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = []
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const call = { url: String(url), init: init ?? {} }
    calls.push(call)
    return answer(call)
  }
  return { calls, fetch: fetch as typeof globalThis.fetch }
}

async function catchError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('createHttpFacilitatorClient', () => {
  test('default: posts the reference body to /verify with the configured headers', async () => {
    const { calls, fetch } = fakeFetch(() => Response.json({ isValid: true, payer: '0xabc' }))
    const client = createHttpFacilitatorClient({
      url: 'https://facilitator.test/base/',
      headers: { Authorization: 'Bearer t' },
      fetch,
    })
    expect(await client.verify(request)).toEqual({ isValid: true, payer: '0xabc' })
    expect(calls[0]?.url).toBe('https://facilitator.test/base/verify')
    expect(calls[0]?.init.method).toBe('POST')
    expect(calls[0]?.init.headers).toEqual({ 'Content-Type': 'application/json', Authorization: 'Bearer t' })
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({
      x402Version: 2,
      paymentPayload: payment,
      paymentRequirements: requirements,
    })
  })

  test('behavior: per-operation headers', async () => {
    const { calls, fetch } = fakeFetch(({ url }) =>
      url.endsWith('/settle')
        ? Response.json({ success: true, transaction: '0x1', network: 'eip155:84532' })
        : Response.json({ kinds: [] }),
    )
    const client = createHttpFacilitatorClient({
      url: 'https://f.test',
      fetch,
      headers: (op) => ({ 'X-Op': op }),
    })
    await client.settle(request)
    expect(await client.getSupported()).toEqual({ kinds: [], extensions: [], signers: {} })
    expect(calls.map((c) => (c.init.headers as Record<string, string>)['X-Op'])).toEqual([
      'settle',
      'supported',
    ])
    expect(calls[1]?.init.method).toBe('GET')
  })

  test('behavior: an invalid outcome sent with a 4xx status is still data', async () => {
    const { fetch } = fakeFetch(() =>
      Response.json({ isValid: false, invalidReason: 'invalid_payload' }, { status: 400 }),
    )
    const client = createHttpFacilitatorClient({ url: 'https://f.test', fetch })
    expect(await client.verify(request)).toEqual({ isValid: false, invalidReason: 'invalid_payload' })
  })

  test('behavior: a settle failure without transaction/network is completed from the request', async () => {
    const { fetch } = fakeFetch(() => Response.json({ success: false, errorReason: 'boom' }, { status: 500 }))
    const client = createHttpFacilitatorClient({ url: 'https://f.test', fetch })
    expect(await client.settle(request)).toEqual({
      success: false,
      errorReason: 'boom',
      transaction: '',
      network: 'eip155:84532',
    })
  })

  test.each([
    ['a 500 with text', () => new Response('Internal error', { status: 500 })],
    ['a 200 with garbage', () => new Response('<html>', { status: 200 })],
    ['a 200 with the wrong shape', () => Response.json({ valid: true })],
    ['a 404 with JSON', () => Response.json({ error: 'not found' }, { status: 404 })],
  ])('behavior: %s throws facilitator_unreachable', async (_name, answer) => {
    const { fetch } = fakeFetch(answer)
    const client = createHttpFacilitatorClient({ url: 'https://f.test', fetch })
    const error = await catchError(() => client.verify(request))
    expect(isAppError(error, 'facilitator_unreachable')).toBe(true)
  })

  test('behavior: a network error throws facilitator_unreachable with the URL', async () => {
    const { fetch } = fakeFetch(() => {
      throw new TypeError('fetch failed')
    })
    const client = createHttpFacilitatorClient({ url: 'https://f.test', fetch })
    const error = await catchError(() => client.settle(request))
    expect(isAppError(error, 'facilitator_unreachable') && error.context).toEqual({
      url: 'https://f.test/settle',
    })
  })

  test('behavior: a call that outlives timeoutMs is aborted', async () => {
    const { fetch } = fakeFetch(
      ({ init }) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => reject(init.signal?.reason))
        }),
    )
    const client = createHttpFacilitatorClient({ url: 'https://f.test', fetch, timeoutMs: 20 })
    const error = await catchError(() => client.verify(request))
    expect(isAppError(error, 'facilitator_unreachable') && error.message).toBe(
      'facilitator verify timed out after 20 ms',
    )
  })

  test('behavior: /supported retries 429 up to three attempts, honoring Retry-After', async () => {
    const waits: number[] = []
    let attempt = 0
    const { calls, fetch } = fakeFetch(() =>
      ++attempt < 3
        ? new Response('slow down', { status: 429, headers: { 'Retry-After': '2' } })
        : Response.json({ kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }] }),
    )
    const client = createHttpFacilitatorClient({
      url: 'https://f.test',
      fetch,
      sleep: async (ms) => {
        waits.push(ms)
      },
    })
    expect((await client.getSupported()).kinds).toHaveLength(1)
    expect(calls).toHaveLength(3)
    expect(waits).toEqual([2000, 2000])
  })

  test('behavior: /supported gives up after three 429s', async () => {
    const { calls, fetch } = fakeFetch(() => new Response('', { status: 429 }))
    const waits: number[] = []
    const client = createHttpFacilitatorClient({
      url: 'https://f.test',
      fetch,
      sleep: async (ms) => {
        waits.push(ms)
      },
    })
    const error = await catchError(() => client.getSupported())
    expect(isAppError(error, 'facilitator_unreachable') && error.context.status).toBe(429)
    expect(calls).toHaveLength(3)
    expect(waits).toEqual([1000, 2000])
  })
})
