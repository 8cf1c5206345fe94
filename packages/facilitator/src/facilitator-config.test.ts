import { isAppError, SOLANA_DEVNET } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { type FacilitatorConfigFile, parseFacilitatorConfig } from './facilitator-config.js'

const EVM_KEY = `0x${'11'.repeat(32)}`
const SOLANA_KEY = JSON.stringify(Array.from({ length: 64 }, (_, i) => i))

const env = {
  RELAYER_KEY_1: EVM_KEY,
  FEE_PAYER: SOLANA_KEY,
  TOKEN: 'tok',
  DB: 'postgres://db/x',
  RPC: 'http://rpc',
}

const file: FacilitatorConfigFile = {
  port: 4100,
  authTokenEnv: 'TOKEN',
  networks: {
    'eip155:84532': {
      rpcUrl: 'http://127.0.0.1:8545',
      schemes: ['eip3009', 'permit2'],
      signers: [{ privateKeyEnv: 'RELAYER_KEY_1' }],
      maxFeePerGasCap: '50000000000',
      assets: [
        {
          symbol: 'USDC',
          address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          decimals: 6,
          eip712: { name: 'USDC', version: '2' },
          transferMethods: ['eip3009', 'permit2'],
        },
      ],
    },
    [SOLANA_DEVNET]: {
      rpcUrlEnv: 'RPC',
      schemes: ['solana'],
      signers: [{ privateKeyEnv: 'FEE_PAYER' }],
    },
  },
  solana: { limits: { maxComputeUnitPriceMicroLamports: 5000 } },
}

function getIssues(json: unknown, environment: Record<string, string> = env): Record<string, string> {
  try {
    parseFacilitatorConfig(json, environment)
  } catch (error) {
    if (isAppError(error, 'invalid_config')) {
      return error.context.issues
    }
    throw error
  }
  throw new Error('expected an invalid_config error')
}

describe('parseFacilitatorConfig', () => {
  test('default: resolves env references and fills defaults', () => {
    const config = parseFacilitatorConfig(file, env)
    expect(config).toMatchObject({
      port: 4100,
      host: '127.0.0.1',
      authToken: 'tok',
      dataDir: '.tollgate/facilitator',
      databaseSchema: 'public',
      reconcileIntervalMs: 15_000,
      logLevel: 'info',
      evm: {},
      solana: { limits: { maxComputeUnitPriceMicroLamports: 5000n } },
    })
    expect(config.databaseUrl).toBeUndefined()
    expect(config.networks).toEqual([
      {
        network: 'eip155:84532',
        family: 'evm',
        rpcUrl: 'http://127.0.0.1:8545',
        schemes: ['eip3009', 'permit2'],
        privateKeys: [EVM_KEY],
        maxFeePerGasCap: 50_000_000_000n,
        assets: [expect.objectContaining({ network: 'eip155:84532', symbol: 'USDC', decimals: 6 })],
      },
      {
        network: SOLANA_DEVNET,
        family: 'svm',
        rpcUrl: 'http://rpc',
        schemes: ['solana'],
        privateKeys: [SOLANA_KEY],
        // No assets listed: the known assets of the network are the allowlist.
        assets: [
          expect.objectContaining({
            symbol: 'USDC',
            address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
          }),
        ],
      },
    ])
  })

  test('behavior: a database URL comes from its env var', () => {
    expect(parseFacilitatorConfig({ ...file, databaseUrlEnv: 'DB' }, env).databaseUrl).toBe('postgres://db/x')
  })

  test('behavior: reports missing env vars and bad keys by path', () => {
    expect(getIssues(file, { RELAYER_KEY_1: '0x1234', RPC: 'http://rpc', FEE_PAYER: 'not-base58!' })).toEqual(
      {
        authTokenEnv: 'environment variable TOKEN is not set',
        'networks.eip155:84532.signers.0.privateKeyEnv': 'RELAYER_KEY_1 does not hold a EVM private key',
        [`networks.${SOLANA_DEVNET}.signers.0.privateKeyEnv`]: 'FEE_PAYER does not hold a Solana private key',
      },
    )
  })

  test('behavior: rejects schemes on the wrong chain family and a missing RPC', () => {
    const bad = {
      networks: {
        'eip155:84532': { schemes: ['solana'], signers: [{ privateKeyEnv: 'RELAYER_KEY_1' }] },
      },
    }
    expect(getIssues(bad)).toEqual({
      'networks.eip155:84532.schemes': 'solana cannot run on eip155:84532; use eip3009 or permit2',
      'networks.eip155:84532.rpcUrl': 'set exactly one of rpcUrl and rpcUrlEnv',
    })
  })

  test('behavior: rejects wrong types, unknown fields and bad network ids', () => {
    const issues = getIssues({
      port: '80',
      extra: true,
      networks: { mainnet: { rpcUrl: 'http://x', schemes: ['eip3009'], signers: [] } },
    })
    expect(Object.keys(issues).sort()).toEqual(['', 'networks.mainnet', 'port'])
    const noSigners = {
      networks: { 'eip155:84532': { rpcUrl: 'http://x', schemes: ['eip3009'], signers: [] } },
    }
    expect(Object.keys(getIssues(noSigners))).toEqual(['networks.eip155:84532.signers'])
    expect(getIssues({ networks: {} })).toEqual({ networks: 'configure at least one network' })
    expect(getIssues(null)).toHaveProperty('')
  })

  test('behavior: a network without known assets must list them', () => {
    const issues = getIssues({
      networks: {
        'eip155:31337': {
          rpcUrl: 'http://x',
          schemes: ['eip3009'],
          signers: [{ privateKeyEnv: 'RELAYER_KEY_1' }],
        },
      },
    })
    expect(issues).toEqual({
      'networks.eip155:31337.assets': 'no known assets on eip155:31337; list the allowlisted assets',
    })
  })

  test('behavior: listening beyond loopback without a token is refused, naming authTokenEnv', () => {
    const { authTokenEnv: _token, ...open } = file
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'facilitator.internal']) {
      expect(getIssues({ ...open, host })).toEqual({
        authTokenEnv: expect.stringContaining(`required when host (${host}) is not loopback`),
      })
    }
    expect(() => parseFacilitatorConfig({ ...open, host: '0.0.0.0' }, env)).toThrow(/authTokenEnv: required/)
    // With a token any host is fine; without one, loopback (and the default host) still starts.
    expect(parseFacilitatorConfig({ ...file, host: '0.0.0.0' }, env).host).toBe('0.0.0.0')
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) {
      expect(parseFacilitatorConfig({ ...open, host }, env).authToken).toBeUndefined()
    }
    expect(parseFacilitatorConfig(open, env).host).toBe('127.0.0.1')
  })

  test('behavior: the error message lists every issue', () => {
    expect(() =>
      parseFacilitatorConfig({ networks: {}, port: -1, host: '' }, {}),
    ).toThrowErrorMatchingInlineSnapshot(`
      [AppError: invalid facilitator configuration:
        port: Too small: expected number to be >=0
        host: Too small: expected string to have >=1 characters]
    `)
  })
})
