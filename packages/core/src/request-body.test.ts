import { describe, expect, test } from 'vitest'
import { drainRequestBody, isUndrainable, readRequestText } from './request-body.js'

function streamOf(chunks: number, size: number): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) {
        controller.close()
        return
      }
      pulled += 1
      controller.enqueue(new Uint8Array(size))
    },
  })
  return { body, pulled: () => pulled }
}

const post = (body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
  new Request('http://test/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit)

describe('readRequestText', () => {
  test('default: reads UTF-8 text', async () => {
    expect(await readRequestText(post('{"a":"é"}'), 100)).toBe('{"a":"é"}')
    expect(await readRequestText(new Request('http://test/'), 100)).toBe('')
  })

  test('behavior: over the limit is payload_too_large, and the rest stays drainable', async () => {
    await expect(readRequestText(post('x', { 'content-length': '101' }), 100)).rejects.toMatchObject({
      code: 'payload_too_large',
    })
    const { body, pulled } = streamOf(10, 64)
    const request = post(body)
    await expect(readRequestText(request, 100)).rejects.toMatchObject({ code: 'payload_too_large' })
    expect(request.body?.locked).toBe(false)
    await drainRequestBody(request)
    expect(pulled()).toBe(10)
  })
})

describe('drainRequestBody', () => {
  test('behavior: stops past maxBytes and never throws', async () => {
    const { body, pulled } = streamOf(1_000, 1024)
    await drainRequestBody(post(body), { maxBytes: 10 * 1024 })
    expect(pulled()).toBeLessThan(20)
    const failing = new ReadableStream({
      pull(controller) {
        controller.error(new Error('client went away'))
      },
    })
    await expect(drainRequestBody(post(failing))).resolves.toBeUndefined()
  })

  test('behavior: isUndrainable looks at the declared length only', () => {
    expect(isUndrainable(post('x', { 'content-length': String(17 * 1024 * 1024) }))).toBe(true)
    expect(isUndrainable(post('x'))).toBe(false)
  })
})
