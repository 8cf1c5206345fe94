import { describe, expect, test } from 'vitest'
import { Eip3009Payload, Permit2Payload } from './payloads.js'

const eip3009 = {
  signature: `0x${'ab'.repeat(65)}`,
  authorization: {
    from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    to: '0x00000000000000000000000000000000000000bb',
    value: '10000',
    validAfter: '0',
    validBefore: '1750000300',
    nonce: `0x${'11'.repeat(32)}`,
  },
}
const permit2 = {
  signature: `0x${'ab'.repeat(65)}`,
  permit2Authorization: {
    from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    permitted: { token: '0xF71D5fd7d9fa429e57a8882f094F385eD64FF97f', amount: '10000' },
    spender: '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
    nonce: (2n ** 255n).toString(),
    deadline: '1750000300',
    witness: { to: '0x00000000000000000000000000000000000000bb', validAfter: '0' },
  },
}

describe('Eip3009Payload', () => {
  test('accepts the reference payload shape', () => {
    expect(Eip3009Payload.parse(eip3009)).toEqual(eip3009)
  })

  test.each([
    ['numeric value', { ...eip3009.authorization, value: 10000 }],
    ['short nonce', { ...eip3009.authorization, nonce: '0x1234' }],
    ['bad address', { ...eip3009.authorization, to: '0x123' }],
    ['negative validBefore', { ...eip3009.authorization, validBefore: '-1' }],
    ['value over uint256', { ...eip3009.authorization, value: (2n ** 256n).toString() }],
  ])('behavior: rejects %s', (_, authorization) => {
    expect(Eip3009Payload.safeParse({ ...eip3009, authorization }).success).toBe(false)
  })

  test('behavior: number strings that are not plain decimals fail validation without throwing', () => {
    for (const value of ['12abc', '1e3', ' 5', '-0x1', '0x10', '+1', '1.5', '']) {
      for (const field of ['value', 'validAfter', 'validBefore'] as const) {
        const authorization = { ...eip3009.authorization, [field]: value }
        expect(Eip3009Payload.safeParse({ ...eip3009, authorization }).success, `${field}=${value}`).toBe(
          false,
        )
      }
      const permitted = { ...permit2.permit2Authorization.permitted, amount: value }
      const authorization = { ...permit2.permit2Authorization, permitted, nonce: value, deadline: value }
      expect(Permit2Payload.safeParse({ ...permit2, permit2Authorization: authorization }).success).toBe(
        false,
      )
    }
  })

  test('behavior: rejects a missing or non-hex signature', () => {
    expect(Eip3009Payload.safeParse({ authorization: eip3009.authorization }).success).toBe(false)
    expect(Eip3009Payload.safeParse({ ...eip3009, signature: 'abc' }).success).toBe(false)
  })
})

describe('Permit2Payload', () => {
  test('accepts the reference payload shape', () => {
    expect(Permit2Payload.parse(permit2)).toEqual(permit2)
  })

  test('behavior: rejects a payload without the witness', () => {
    const { witness: _, ...rest } = permit2.permit2Authorization
    expect(Permit2Payload.safeParse({ ...permit2, permit2Authorization: rest }).success).toBe(false)
  })

  test('behavior: an EIP-3009 payload is not a Permit2 payload', () => {
    expect(Permit2Payload.safeParse(eip3009).success).toBe(false)
  })
})
