import { isAppError } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { parseFacilitatorRequest } from './parse-facilitator-request.js'
import { buildFakeRequest } from './testing/create-fake-scheme.js'

function getError(body: unknown) {
  try {
    parseFacilitatorRequest(body)
  } catch (error) {
    if (isAppError(error)) {
      return { code: error.code, message: error.message, context: error.context }
    }
    throw error
  }
  throw new Error('expected parseFacilitatorRequest to throw')
}

const v1Request = {
  x402Version: 1,
  paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { nonce: '0x01' } },
  paymentRequirements: {
    scheme: 'exact',
    network: 'base-sepolia',
    maxAmountRequired: '10000',
    resource: 'https://merchant.example/paid',
    description: '',
    mimeType: 'application/json',
    payTo: '0x00000000000000000000000000000000000000aa',
    maxTimeoutSeconds: 60,
    asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    extra: { name: 'USDC', version: '2' },
  },
}

describe('parseFacilitatorRequest', () => {
  test('default: accepts a v2 request and keeps unknown fields', () => {
    const request = buildFakeRequest()
    const parsed = parseFacilitatorRequest({ ...request, future: 1 })
    expect(parsed.paymentPayload).toEqual(request.paymentPayload)
    expect(parsed).toMatchObject({ future: 1 })
  })

  test('behavior: accepts a v1 request (shape chosen by paymentPayload.x402Version)', () => {
    expect(parseFacilitatorRequest(v1Request).paymentRequirements).toMatchObject({
      maxAmountRequired: '10000',
    })
  })

  test('behavior: rejects a body that is not an object', () => {
    expect(getError([1, 2])).toMatchObject({
      code: 'invalid_request',
      message: 'body: the body must be a JSON object',
    })
    expect(getError('text').code).toBe('invalid_request')
    expect(getError(null).code).toBe('invalid_request')
  })

  test('behavior: rejects a missing paymentPayload', () => {
    expect(getError({ paymentRequirements: {} })).toMatchObject({
      code: 'invalid_request',
      context: { issues: { paymentPayload: 'required, an object' } },
    })
  })

  test('behavior: rejects unknown x402 versions', () => {
    const request = buildFakeRequest()
    const error = getError({ ...request, paymentPayload: { ...request.paymentPayload, x402Version: 3 } })
    expect(error).toMatchObject({ code: 'invalid_x402_version', context: { version: 3 } })
    expect(error.message).toMatchInlineSnapshot(`"paymentPayload.x402Version must be 1 or 2, got 3"`)
    expect(getError({ paymentPayload: {} }).message).toMatchInlineSnapshot(
      `"paymentPayload.x402Version must be 1 or 2, got nothing"`,
    )
  })

  test('behavior: reports missing and mistyped fields by path', () => {
    const request = buildFakeRequest()
    const { amount: _amount, ...noAmount } = request.paymentRequirements
    expect(getError({ ...request, paymentRequirements: noAmount }).context).toEqual({
      issues: { 'paymentRequirements.amount': expect.any(String) },
    })
    const mistyped = { ...request.paymentRequirements, maxTimeoutSeconds: '60', amount: '1.5' }
    const issues = getError({ ...request, paymentRequirements: mistyped }).context
    expect(Object.keys((issues as { issues: object }).issues).sort()).toEqual([
      'paymentRequirements.amount',
      'paymentRequirements.maxTimeoutSeconds',
    ])
    expect(getError({ ...request, paymentRequirements: undefined }).context).toEqual({
      issues: { paymentRequirements: expect.any(String) },
    })
  })

  test('behavior: a v1 payload with v2 requirements is rejected', () => {
    const request = buildFakeRequest()
    const error = getError({ ...v1Request, paymentRequirements: request.paymentRequirements })
    expect(error.code).toBe('invalid_request')
    expect(Object.keys((error.context as { issues: object }).issues)).toContain(
      'paymentRequirements.maxAmountRequired',
    )
  })
})
