import { isAppError } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { parseProductionConfig } from './production-config.js'

const env = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/tollgate',
  TOLLGATE_MASTER_SEED: 'ab'.repeat(64),
  TOLLGATE_SECRET_KEYS: `k1:${'cd'.repeat(32)}`,
}
const file = { publicBaseUrl: 'https://pay.example.com' }

function issuesOf(json: unknown, vars: Record<string, string | undefined>): Record<string, string> {
  try {
    parseProductionConfig(json, vars)
  } catch (error) {
    if (isAppError(error, 'invalid_config')) {
      expect(error.message).toContain('invalid production configuration')
      return error.context.issues
    }
    throw error
  }
  throw new Error('expected an invalid_config error')
}

describe('parseProductionConfig', () => {
  test('default: a minimal file and environment give the defaults, RPC URLs resolved from the environment', () => {
    const config = parseProductionConfig(
      { ...file, networks: { 'eip155:8453': { rpcUrlEnv: 'BASE_RPC_URL' } } },
      { ...env, BASE_RPC_URL: 'https://base.example/rpc', PORT: '8080' },
    )
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      inProcessJobs: true,
      databaseUrl: env.DATABASE_URL,
      masterSeed: 'ab'.repeat(64),
      networks: { 'eip155:8453': { rpcUrl: 'https://base.example/rpc' } },
      fx: { usdPrices: {}, spreadBps: 0 },
    })
    expect(config.operatingKeys).toBeUndefined()
  })

  test('behavior: operating keys come from the environment together', () => {
    const treasury = `0x${'11'.repeat(32)}`
    const payer = `0x${'22'.repeat(32)}`
    const config = parseProductionConfig(file, {
      ...env,
      TOLLGATE_TREASURY_KEY: treasury,
      TOLLGATE_FEE_PAYER_KEYS: ` ${payer} ,${payer}`,
    })
    expect(config.operatingKeys).toEqual({ treasury, feePayers: [payer, payer] })
    expect(issuesOf(file, { ...env, TOLLGATE_TREASURY_KEY: treasury })).toEqual({
      'env.TOLLGATE_FEE_PAYER_KEYS': expect.stringContaining('together'),
    })
  })

  test('behavior: TOLLGATE_SECRET_KEYS gives the keyring, the first key current', () => {
    const config = parseProductionConfig(file, {
      ...env,
      TOLLGATE_SECRET_KEYS: `new:${'01'.repeat(32)}, old:${'02'.repeat(32)}`,
    })
    expect(config.secretKeyring.currentKeyId).toBe('new')
    expect([...config.secretKeyring.keys.keys()]).toEqual(['new', 'old'])
  })

  test('behavior: the facilitator URL is https or loopback http; its token comes from the named variable', () => {
    const withToken = parseProductionConfig(
      { ...file, facilitatorUrl: 'https://f.example/x402', facilitatorTokenEnv: 'FACILITATOR_TOKEN' },
      { ...env, FACILITATOR_TOKEN: ' tok ' },
    )
    expect(withToken).toMatchObject({ facilitatorUrl: 'https://f.example/x402', facilitatorToken: 'tok' })
    expect(withToken).not.toHaveProperty('facilitatorTokenEnv')
    for (const url of ['http://127.0.0.1:4021', 'http://localhost:4021/f', 'http://[::1]:4021']) {
      const config = parseProductionConfig({ ...file, facilitatorUrl: url }, env)
      expect(config.facilitatorUrl).toBe(url)
      expect(config.facilitatorToken).toBeUndefined()
    }
  })

  test.each([
    ['a missing DATABASE_URL', file, { ...env, DATABASE_URL: undefined }, { 'env.DATABASE_URL': 'required' }],
    [
      'a non-PostgreSQL DATABASE_URL',
      file,
      { ...env, DATABASE_URL: 'mysql://x' },
      { 'env.DATABASE_URL': 'a postgres:// connection URL' },
    ],
    [
      'a short master seed',
      file,
      { ...env, TOLLGATE_MASTER_SEED: 'abcd' },
      { 'env.TOLLGATE_MASTER_SEED': '64 bytes in hex (128 hex digits)' },
    ],
    ['no publicBaseUrl', {}, env, { publicBaseUrl: expect.any(String) }],
    ['an unknown field', { ...file, prot: 4020 }, env, { '(file)': expect.stringContaining('prot') }],
    ['a port out of range', { ...file, port: 70_000 }, env, { port: expect.any(String) }],
    [
      'a test network',
      { ...file, networks: { 'eip155:84532': { rpcUrl: 'https://x.example' } } },
      env,
      { 'networks.eip155:84532': expect.stringContaining('not a live network') },
    ],
    [
      'both rpcUrl and rpcUrlEnv',
      { ...file, networks: { 'eip155:8453': { rpcUrl: 'https://x.example', rpcUrlEnv: 'X' } } },
      env,
      { 'networks.eip155:8453.rpcUrl': 'set exactly one of rpcUrl and rpcUrlEnv' },
    ],
    [
      'an unset rpcUrlEnv',
      { ...file, networks: { 'eip155:8453': { rpcUrlEnv: 'BASE_RPC_URL' } } },
      env,
      { 'networks.eip155:8453.rpcUrlEnv': 'environment variable BASE_RPC_URL does not hold a URL' },
    ],
    [
      'a bad fee-payer key',
      file,
      { ...env, TOLLGATE_TREASURY_KEY: `0x${'11'.repeat(32)}`, TOLLGATE_FEE_PAYER_KEYS: '0x12' },
      {
        'env.TOLLGATE_FEE_PAYER_KEYS': 'comma-separated 0x-prefixed 32-byte hex private keys',
      },
    ],
    [
      'a plain-http facilitator URL on a public host',
      { ...file, facilitatorUrl: 'http://facilitator.example.com' },
      env,
      { facilitatorUrl: expect.stringContaining('must be https') },
    ],
    [
      'a plain-http facilitator URL on a private address',
      { ...file, facilitatorUrl: 'http://10.0.0.7:4021' },
      env,
      { facilitatorUrl: expect.stringContaining('must be https') },
    ],
    [
      'an unset facilitatorTokenEnv',
      { ...file, facilitatorUrl: 'https://f.example', facilitatorTokenEnv: 'FACILITATOR_TOKEN' },
      env,
      { facilitatorTokenEnv: 'environment variable FACILITATOR_TOKEN is not set' },
    ],
    [
      'a facilitatorTokenEnv without facilitatorUrl',
      { ...file, facilitatorTokenEnv: 'FACILITATOR_TOKEN' },
      { ...env, FACILITATOR_TOKEN: 'tok' },
      { facilitatorTokenEnv: expect.stringContaining('set facilitatorUrl') },
    ],
    [
      'a missing TOLLGATE_SECRET_KEYS',
      file,
      { ...env, TOLLGATE_SECRET_KEYS: undefined },
      { 'env.TOLLGATE_SECRET_KEYS': 'required' },
    ],
    [
      'a malformed TOLLGATE_SECRET_KEYS',
      file,
      { ...env, TOLLGATE_SECRET_KEYS: `k1:${'cd'.repeat(16)}` },
      { 'env.TOLLGATE_SECRET_KEYS': expect.stringContaining('<keyId>:<64 hex digits>') },
    ],
    [
      'a zero FX price',
      { ...file, fx: { usdPrices: { ETH: '0' } } },
      env,
      { 'fx.usdPrices': 'prices must be above zero' },
    ],
  ])('behavior: %s is refused naming the field', (_name, json, vars, issues) => {
    expect(issuesOf(json, vars)).toEqual(issues)
  })

  test('trustedProxies: none by default; addresses and CIDR ranges accepted, anything else refused by index', () => {
    expect(parseProductionConfig(file, env).trustedProxies).toEqual([])
    const config = parseProductionConfig({ ...file, trustedProxies: ['10.0.0.0/8', '::1'] }, env)
    expect(config.trustedProxies).toEqual(['10.0.0.0/8', '::1'])
    expect(issuesOf({ ...file, trustedProxies: ['10.0.0.1', 'proxy.internal'] }, env)).toHaveProperty(
      'trustedProxies.1',
    )
  })
})
