import { isAppError, SOLANA_DEVNET } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { compileRoutes, findRoute, toAtomicAmount } from './compile-routes.js'
import { assets, fakeSchemes, MERCHANT_EVM, MERCHANT_SVM } from './testing/fakes.js'
import type { RoutesConfig } from './types.js'

const defaults = {
  schemes: fakeSchemes,
  assets,
  payTo: { evm: MERCHANT_EVM, svm: MERCHANT_SVM },
  flow: 'authorization' as const,
}
const eip3009 = { scheme: 'eip3009', network: 'eip155:84532' } as const

function compileError(routes: RoutesConfig): string | undefined {
  try {
    compileRoutes(routes, defaults)
  } catch (error) {
    return isAppError(error, 'middleware_config_invalid') ? error.context.detail : 'other error'
  }
  return undefined
}

describe('compileRoutes', () => {
  test('default: prices convert with each asset’s decimals', () => {
    const [route] = compileRoutes(
      {
        price: '$0.01',
        accepts: [
          eip3009,
          { scheme: 'permit2', network: 'bsc-testnet', asset: 'USDT' },
          { scheme: 'solana', network: SOLANA_DEVNET, price: { amount: 7n } },
          { scheme: 'eip3009', network: 'base-sepolia', price: 0.25 },
        ],
      },
      defaults,
    )
    expect(route?.accepts.map((a) => [a.asset.network, a.amount, a.payTo])).toEqual([
      ['eip155:84532', 10000n, MERCHANT_EVM],
      ['eip155:97', 10n ** 16n, MERCHANT_EVM],
      [SOLANA_DEVNET, 7n, MERCHANT_SVM],
      ['eip155:84532', 250000n, MERCHANT_EVM],
    ])
    expect(route?.accepts.map((a) => a.needsSupported)).toEqual([false, false, true, false])
  })

  test('behavior: payTo precedence is option, then route, then default', () => {
    const [route] = compileRoutes(
      { price: '$1', payTo: '0xroute', accepts: [eip3009, { ...eip3009, payTo: '0xoption' }] },
      defaults,
    )
    expect(route?.accepts.map((a) => a.payTo)).toEqual(['0xroute', '0xoption'])
  })

  test.each([
    [
      { price: '$1', accepts: { scheme: 'eip3009', network: 'eip155:97' } },
      'USDC on eip155:97 cannot be paid with eip3009',
    ],
    [{ price: '$1', accepts: { ...eip3009, asset: 'DOGE' } }, 'no asset DOGE on eip155:84532'],
    [{ accepts: eip3009 }, 'no price for eip3009 on eip155:84532'],
    [{ price: '$0.0000001', accepts: eip3009 }, '"0.0000001" has more than 6 decimal places'],
    [{ price: '$0', accepts: eip3009 }, 'amount must be greater than zero'],
    [{ price: '$1', accepts: { scheme: 'eip3009', network: 'nowhere' } }, 'unknown network "nowhere"'],
    [{ price: '$1', accepts: [] }, 'a route needs at least one accept option'],
    [
      { 'GET weather': { price: '$1', accepts: eip3009 } },
      'route keys look like "GET /path", "/path/*" or "*"',
    ],
  ] as [RoutesConfig, string][])('behavior: rejects bad configuration (case %#)', (routes, detail) => {
    expect(compileError(routes)).toBe(detail)
  })

  test('behavior: needs a payee for the network family', () => {
    expect(() =>
      compileRoutes(
        { price: '$1', accepts: { scheme: 'solana', network: SOLANA_DEVNET } },
        {
          ...defaults,
          payTo: { evm: MERCHANT_EVM },
        },
      ),
    ).toThrow(`no payTo for ${SOLANA_DEVNET}`)
  })

  test('behavior: needs a scheme server for the scheme', () => {
    expect(() => compileRoutes({ price: '$1', accepts: eip3009 }, { ...defaults, schemes: [] })).toThrow(
      'no scheme server for eip3009',
    )
  })
})

describe('findRoute', () => {
  const routes = compileRoutes(
    {
      'GET /weather': { price: '$1', accepts: eip3009 },
      'POST /items/:id': { price: '$2', accepts: eip3009 },
      '/api/*': { price: '$3', accepts: eip3009 },
      '* /any.json': { price: '$4', accepts: eip3009 },
    },
    defaults,
  )
  test.each([
    ['GET', '/weather', 'GET /weather'],
    ['GET', '/weather/', 'GET /weather'],
    ['POST', '/weather', undefined],
    ['GET', '/weatherx', undefined],
    ['POST', '/items/42', 'POST /items/:id'],
    ['POST', '/items/42/more', undefined],
    ['POST', '/items/', undefined],
    ['PUT', '/api', '/api/*'],
    ['GET', '/api/a/b', '/api/*'],
    ['GET', '/apix', undefined],
    ['DELETE', '/any.json', '* /any.json'],
    ['DELETE', '/anyxjson', undefined],
  ])('%s %s → %s', (method, path, key) => {
    expect(findRoute(routes, method, path)?.key).toBe(key)
  })
})

describe('toAtomicAmount', () => {
  test.each([
    ['$0.01', 6, 10000n],
    ['$1,000.5', 6, 1000500000n],
    [0.1, 18, 10n ** 17n],
    [{ amount: '123' }, 6, 123n],
    [{ amount: 5n }, 18, 5n],
  ] as const)('case %#', (price, decimals, expected) => {
    expect(toAtomicAmount(price, decimals)).toBe(expected)
  })
})
