import { type Asset, isAppError, SOLANA_DEVNET } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { createSolanaServer } from './server.js'

const usdc: Asset = {
  network: SOLANA_DEVNET,
  symbol: 'USDC',
  address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  decimals: 6,
  transferMethods: ['solana'],
}
const feePayer = 'GK2zqSsXLA2rwVZk347RYhh6jJpRsCA69FjLW93ZGi3B'
const payTo = '3d9ieH6kLtkXVaeMvW5G6q21EfLLPfno1U3McGSkwpBm'
const supportedKind = { x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET, extra: { feePayer } }

describe('createSolanaServer', () => {
  test('default: exact requirements with the facilitator fee payer', () => {
    const requirements = createSolanaServer().createRequirements({
      asset: usdc,
      amount: 10_000n,
      payTo,
      supportedKind,
    })
    expect(requirements).toEqual({
      scheme: 'exact',
      network: SOLANA_DEVNET,
      amount: '10000',
      asset: usdc.address,
      payTo,
      maxTimeoutSeconds: 300,
      extra: { feePayer },
    })
  })

  test('behavior: a memo is carried in extra', () => {
    const requirements = createSolanaServer().createRequirements({
      asset: usdc,
      amount: 1n,
      payTo,
      supportedKind,
      maxTimeoutSeconds: 60,
      extra: { memo: 'invoice 12' },
    })
    expect(requirements.extra).toEqual({ memo: 'invoice 12', feePayer })
    expect(requirements.maxTimeoutSeconds).toBe(60)
  })

  test.each([
    ['no fee payer', { supportedKind: undefined }, 'invalid_request'],
    ['a payTo that is not an address', { payTo: '0xabc' }, 'invalid_request'],
    ['a memo over 256 bytes', { extra: { memo: 'é'.repeat(129) } }, 'invalid_request'],
    ['a zero amount', { amount: 0n }, 'invalid_amount'],
    [
      'an asset without the solana method',
      { asset: { ...usdc, transferMethods: ['permit2' as const] } },
      'unsupported_scheme',
    ],
  ] as const)('behavior: refuses %s', (_name, overrides, code) => {
    const parameters = { asset: usdc, amount: 1n, payTo, supportedKind, ...overrides }
    const error = (() => {
      try {
        createSolanaServer().createRequirements(
          parameters as Parameters<ReturnType<typeof createSolanaServer>['createRequirements']>[0],
        )
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(isAppError(error, code)).toBe(true)
  })
})
