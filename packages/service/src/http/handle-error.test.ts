import { AppError } from '@tollgate/core'
import { HTTPException } from 'hono/http-exception'
import { describe, expect, test } from 'vitest'
import { toHttpError } from './handle-error.js'

describe('toHttpError', () => {
  test('default: a service code keeps its status, wire code, param and headers', () => {
    const mapped = toHttpError(
      new AppError('rate_limited', { message: 'slow down', context: { headers: { 'Retry-After': '3' } } }),
    )
    expect(mapped).toEqual({
      status: 429,
      code: 'rate_limited',
      message: 'slow down',
      headers: { 'Retry-After': '3' },
      unexpected: false,
    })
  })

  test('behavior: core codes thrown by core, evm or svm map to documented 4xx wire codes, not 500', () => {
    expect(toHttpError(new AppError('invalid_amount', { context: { value: '1.2345678' } }))).toMatchObject({
      status: 400,
      code: 'validation_error',
    })
    expect(
      toHttpError(new AppError('unknown_asset', { context: { network: 'eip155:1', asset: 'FOO' } })),
    ).toMatchObject({ status: 400, code: 'unsupported_asset_chain' })
    expect(
      toHttpError(new AppError('invalid_request', { context: { issues: { amount: 'must be digits' } } })),
    ).toMatchObject({ status: 400, code: 'validation_error', details: { amount: 'must be digits' } })
  })

  test('behavior: node failures are 503 provider_unavailable and logged', () => {
    expect(toHttpError(new AppError('rpc_failed', { context: { network: 'eip155:84532' } }))).toMatchObject({
      status: 503,
      code: 'provider_unavailable',
      unexpected: true,
    })
  })

  test('behavior: unknown errors and unmapped codes become a 500 internal_error without their message', () => {
    for (const error of [new Error('secret detail'), new AppError('settlement_store_failed')]) {
      expect(toHttpError(error)).toEqual({
        status: 500,
        code: 'internal_error',
        message: 'Internal server error',
        headers: {},
        unexpected: true,
      })
    }
  })

  test("behavior: hono's HTTPException 404 is a not_found", () => {
    expect(toHttpError(new HTTPException(404, { message: 'gone' }))).toMatchObject({
      status: 404,
      code: 'not_found',
    })
  })
})
