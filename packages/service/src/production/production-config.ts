import { AppError, isAppError } from '@tollgate/core'
import { isLoopbackUrl } from '@tollgate/facilitator'
import { z } from 'zod'
import { isProxyRange } from '../checkout/client-ip.js'
import type { RailsNetwork } from '../rails/chains/create-chain-registry.js'
import { chainTable } from '../reference/chains.js'
import { parseSecretKeys, type SecretKeyring } from '../secrets/secret-keyring.js'

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
const hexKey = /^0x[0-9a-fA-F]{64}$/

const NetworkConfig = z.strictObject({
  rpcUrl: z.url().optional(),
  /** The environment variable holding the RPC URL (keeps provider API keys out of the file). */
  rpcUrlEnv: envName.optional(),
  /** Tokens watched and accepted on this network; default the reference table's mainnet tokens. */
  assets: z
    .record(
      z.string(),
      z.strictObject({
        symbol: z.string().min(1),
        address: z.string().min(1),
        decimals: z.number().int().min(0).max(36),
        eip712: z.strictObject({ name: z.string(), version: z.string() }).optional(),
        tokenProgram: z.string().optional(),
      }),
    )
    .optional(),
})

/** The production configuration file (`tollgate serve --config tollgate.config.json`); docs/production.md. */
export const ProductionConfigFile = z.strictObject({
  port: z.number().int().min(0).max(65_535).default(4020),
  host: z.string().min(1).default('127.0.0.1'),
  /** Public base URL of this server: hosted checkout and payment page URLs start with it. */
  publicBaseUrl: z.url(),
  /**
   * Addresses or CIDR ranges of the reverse proxies in front of the server; `X-Forwarded-For` is
   * believed only from them (default none: the socket address is the client; docs/security.md).
   */
  trustedProxies: z
    .array(z.string().refine(isProxyRange, 'an IP address or CIDR range (10.0.0.0/8)'))
    .max(100)
    .default([]),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  rateLimitPerMinute: z.number().int().min(1).default(600),
  /** false when separate `tollgate worker` processes run the jobs (docs/jobs.md). */
  inProcessJobs: z.boolean().default(true),
  database: z
    .strictObject({
      /** PostgreSQL schema of every table (created if missing); default the connection's search path. */
      schema: z
        .string()
        .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier')
        .optional(),
      poolSize: z.number().int().min(1).max(1000).optional(),
      /** Data statements kept prepared per connection (default 100); 0 sends them unnamed (docs/service.md). */
      preparedStatements: z.number().int().min(0).max(10_000).optional(),
    })
    .default({}),
  /** Live networks by CAIP-2 id (the mainnets of the reference table) with their RPC URL. */
  networks: z.record(z.string(), NetworkConfig).default({}),
  /**
   * An x402 facilitator (POST /verify, /settle) behind the API's /x402 routes; absent: they answer 503.
   * https, or plain http to a loopback host only (a facilitator's answers credit merchants).
   */
  facilitatorUrl: z
    .url()
    .refine(
      (url) => url.startsWith('https://') || (url.startsWith('http://') && isLoopbackUrl(url)),
      'must be https (plain http only to a loopback host: localhost, 127.0.0.1, [::1])',
    )
    .optional(),
  /** The environment variable holding the facilitator's bearer token, sent as `Authorization: Bearer …`. */
  facilitatorTokenEnv: envName.optional(),
  /** FX without a price feed: the USD value of one unit of each currency sessions and swaps may convert. */
  fx: z
    .strictObject({
      usdPrices: z
        .record(
          z.string().regex(/^[A-Z0-9]{2,10}$/, 'a currency code'),
          z.string().regex(/^(0|[1-9]\d*)(\.\d+)?$/, 'a decimal string'),
        )
        .refine(
          (prices) => Object.values(prices).every((price) => /[1-9]/.test(price)),
          'prices must be above zero',
        )
        .default({}),
      spreadBps: z.number().int().min(0).max(1000).default(0),
    })
    .default({ usdPrices: {}, spreadBps: 0 }),
  webhooks: z
    .strictObject({
      /** Delays before each retry of a live delivery, in ms (default about 8 attempts over a day). */
      retryDelaysMs: z.array(z.number().int().min(1)).min(1).optional(),
    })
    .default({}),
})

/** The environment variables of `tollgate serve` (they override nothing in the file but the port and host). */
export const ProductionEnv = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// connection URL'),
  /** 64-byte hex seed of deposit addresses and (unless given below) the treasury and fee payers. */
  TOLLGATE_MASTER_SEED: z.string().regex(/^(0x)?[0-9a-fA-F]{128}$/, '64 bytes in hex (128 hex digits)'),
  /** EVM treasury (relayer) key of the live rails: sends payouts, receives sweeps. */
  TOLLGATE_TREASURY_KEY: z.string().regex(hexKey, 'a 0x-prefixed 32-byte hex private key').optional(),
  /** Comma-separated EVM fee-payer keys (they pay gas for sweeps). */
  TOLLGATE_FEE_PAYER_KEYS: z
    .string()
    .refine(
      (value) => value.split(',').every((key) => hexKey.test(key.trim())),
      'comma-separated 0x-prefixed 32-byte hex private keys',
    )
    .optional(),
  /** Keys of stored secrets: `<keyId>:<64 hex>[,<keyId>:<64 hex>…]`, the first encrypts (docs/security.md). */
  TOLLGATE_SECRET_KEYS: z.string().min(1),
  /** Bearer token of `/metrics` (at least 32 characters); without it production serves no `/metrics`. */
  TOLLGATE_METRICS_TOKEN: z.string().trim().min(32, 'at least 32 characters').optional(),
  PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  HOST: z.string().min(1).optional(),
})

/** A validated production configuration, with the secrets and RPC URLs resolved from the environment. */
export type ProductionConfig = Omit<
  z.output<typeof ProductionConfigFile>,
  'networks' | 'facilitatorTokenEnv'
> & {
  /** The facilitator's bearer token, read from the variable `facilitatorTokenEnv` names. */
  facilitatorToken?: string
  databaseUrl: string
  masterSeed: string
  /** Encrypts webhook secrets at rest, from `TOLLGATE_SECRET_KEYS`. */
  secretKeyring: SecretKeyring
  /** `/metrics`' bearer token, from `TOLLGATE_METRICS_TOKEN`; without one `/metrics` is 404. */
  metricsToken?: string
  networks: Record<string, RailsNetwork>
  operatingKeys?: { treasury: `0x${string}`; feePayers: `0x${string}`[] }
}

const liveNetworks = new Set(chainTable.map((info) => info.live.networkId))

/**
 * Validates the configuration file's JSON and the environment; resolves `rpcUrlEnv` references.
 * Pure. Throws `invalid_config` naming every bad field (`networks.eip155:8453.rpcUrl`, `env.DATABASE_URL`).
 */
export function parseProductionConfig(
  json: unknown,
  env: Readonly<Record<string, string | undefined>>,
): ProductionConfig {
  const issues: Record<string, string> = {}
  const file = ProductionConfigFile.safeParse(json)
  const vars = ProductionEnv.safeParse(env)
  for (const issue of file.error?.issues ?? []) {
    issues[issue.path.map(String).join('.') || '(file)'] = issue.message
  }
  for (const issue of vars.error?.issues ?? []) {
    issues[`env.${issue.path.map(String).join('.')}`] =
      issue.code === 'invalid_type' && env[String(issue.path[0])] === undefined ? 'required' : issue.message
  }
  if (vars.success && !vars.data.TOLLGATE_TREASURY_KEY !== !vars.data.TOLLGATE_FEE_PAYER_KEYS) {
    issues['env.TOLLGATE_FEE_PAYER_KEYS'] =
      'set TOLLGATE_TREASURY_KEY and TOLLGATE_FEE_PAYER_KEYS together, or neither (both derive from the master seed)'
  }
  const networks: Record<string, RailsNetwork> = {}
  for (const [id, network] of Object.entries(file.data?.networks ?? {})) {
    const at = `networks.${id}`
    if (!liveNetworks.has(id)) {
      issues[at] = `not a live network; one of ${[...liveNetworks].join(', ')}`
      continue
    }
    if (!network.rpcUrl === !network.rpcUrlEnv) {
      issues[`${at}.rpcUrl`] = 'set exactly one of rpcUrl and rpcUrlEnv'
      continue
    }
    const rpcUrl = network.rpcUrl ?? env[network.rpcUrlEnv ?? '']?.trim()
    if (!rpcUrl || !z.url().safeParse(rpcUrl).success) {
      issues[`${at}.rpcUrlEnv`] = `environment variable ${network.rpcUrlEnv} does not hold a URL`
      continue
    }
    networks[id] = { rpcUrl, ...(network.assets ? { assets: network.assets } : {}) }
  }
  const facilitatorToken = readFacilitatorToken(file.data, env, issues)
  let secretKeyring: SecretKeyring | undefined
  if (vars.success) {
    try {
      secretKeyring = parseSecretKeys(vars.data.TOLLGATE_SECRET_KEYS)
    } catch (error) {
      if (!isAppError(error, 'invalid_config')) {
        throw error
      }
      Object.assign(issues, error.context.issues)
    }
  }
  if (!file.success || !vars.success || !secretKeyring || Object.keys(issues).length > 0) {
    const lines = Object.entries(issues).map(([path, message]) => `  ${path}: ${message}`)
    throw new AppError('invalid_config', {
      context: { issues },
      message: `invalid production configuration:\n${lines.join('\n')}`,
    })
  }
  const { networks: _networks, facilitatorTokenEnv: _tokenEnv, ...rest } = file.data
  const { TOLLGATE_TREASURY_KEY: treasury, TOLLGATE_FEE_PAYER_KEYS: feePayers } = vars.data
  return {
    ...rest,
    ...(vars.data.PORT === undefined ? {} : { port: vars.data.PORT }),
    ...(vars.data.HOST === undefined ? {} : { host: vars.data.HOST }),
    databaseUrl: vars.data.DATABASE_URL,
    masterSeed: vars.data.TOLLGATE_MASTER_SEED.replace(/^0x/, ''),
    secretKeyring,
    networks,
    ...(facilitatorToken ? { facilitatorToken } : {}),
    ...(vars.data.TOLLGATE_METRICS_TOKEN ? { metricsToken: vars.data.TOLLGATE_METRICS_TOKEN } : {}),
    ...(treasury
      ? {
          operatingKeys: {
            treasury: treasury as `0x${string}`,
            feePayers: (feePayers?.split(',') ?? []).map((key) => key.trim() as `0x${string}`),
          },
        }
      : {}),
  }
}

function readFacilitatorToken(
  file: z.output<typeof ProductionConfigFile> | undefined,
  env: Readonly<Record<string, string | undefined>>,
  issues: Record<string, string>,
): string | undefined {
  const name = file?.facilitatorTokenEnv
  if (name === undefined) {
    return undefined
  }
  if (file?.facilitatorUrl === undefined) {
    issues.facilitatorTokenEnv = 'set facilitatorUrl too (the token is sent to it)'
    return undefined
  }
  const token = env[name]?.trim()
  if (!token) {
    issues.facilitatorTokenEnv = `environment variable ${name} is not set`
  }
  return token || undefined
}
