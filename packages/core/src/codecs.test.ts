import { describe, expect, test } from 'vitest'
import {
  decodeBase64Json,
  decodePaymentHeader,
  decodePaymentRequiredHeader,
  encodeBase64Json,
} from './codecs.js'

const requirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x1111111111111111111111111111111111111111',
  maxTimeoutSeconds: 300,
  extra: { name: 'USDC', version: '2' },
}

describe('encodeBase64Json / decodeBase64Json', () => {
  test('default: standard padded base64 of UTF-8 JSON', () => {
    const text = encodeBase64Json({ a: 'é' })
    expect(text).toMatch(/^[A-Za-z0-9+/]*={0,2}$/)
    expect(decodeBase64Json(text)).toEqual({ a: 'é' })
  })
  test('behavior: url-safe, unpadded or non-JSON input is invalid_header', () => {
    expect(() => decodeBase64Json('eyJhIjoxfQ')).toThrowError(/not base64/)
    expect(() => decodeBase64Json('-_-_')).toThrowError(/not base64/)
    expect(() => decodeBase64Json(Buffer.from('not json').toString('base64'))).toThrowError(/JSON/)
  })
  test('behavior: deep nesting, NUL and unpaired surrogates are invalid_header', () => {
    const deep = Buffer.from(`${'['.repeat(5_000)}${']'.repeat(5_000)}`).toString('base64')
    expect(() => decodeBase64Json(deep, 'PAYMENT-SIGNATURE')).toThrowError(/nests deeper than 64 levels/)
    expect(() => decodeBase64Json(encodeBase64Json({ a: 'x\u0000' }))).toThrowError(
      /a must not contain U\+0000/,
    )
    expect(() => decodeBase64Json(encodeBase64Json({ a: ['\ud800'] }))).toThrowError(/a\.0 must not/)
  })
})

describe('decodePaymentHeader', () => {
  test('default: v2 and v1 payloads', () => {
    const v2 = decodePaymentHeader(
      encodeBase64Json({ x402Version: 2, accepted: requirements, payload: { x: 1 } }),
    )
    expect(v2.x402Version).toBe(2)
    const v1 = decodePaymentHeader(
      encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: {} }),
    )
    expect(v1).toMatchObject({ x402Version: 1, network: 'base-sepolia' })
  })
  test('behavior: unknown version or missing fields are rejected', () => {
    expect(() => decodePaymentHeader(encodeBase64Json({ x402Version: 3, payload: {} }))).toThrowError()
    expect(() =>
      decodePaymentHeader(
        encodeBase64Json({ x402Version: 2, accepted: { ...requirements, amount: '1.5' }, payload: {} }),
      ),
    ).toThrowError(/valid x402/)
  })
})

describe('decodePaymentRequiredHeader', () => {
  test('default', () => {
    const header = encodeBase64Json({
      x402Version: 2,
      resource: { url: 'http://x/y' },
      accepts: [requirements],
    })
    expect(decodePaymentRequiredHeader(header).accepts[0]?.extra).toEqual({ name: 'USDC', version: '2' })
  })
  test('behavior: an empty accepts list is rejected', () => {
    const header = encodeBase64Json({ x402Version: 2, resource: { url: 'http://x/y' }, accepts: [] })
    expect(() => decodePaymentRequiredHeader(header)).toThrowError()
  })
})
