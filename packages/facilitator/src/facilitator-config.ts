import {
  AppError,
  type Asset,
  Caip2Network,
  DEFAULT_ASSETS,
  getNetworkFamily,
  type Network,
  type NetworkFamily,
  type SchemeName,
} from '@tollgate/core'
import { z } from 'zod'
import './errors.js'
import { type SettleLimits, toMinAmountKey } from './create-settle-guard.js'
import { isLoopbackHost } from './is-loopback-host.js'

const EnvName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
  .describe('name of an environment variable that holds the value')
const Scheme = z.enum(['eip3009', 'permit2', 'solana'])
const Wei = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform(BigInt)

const SignerRef = z.strictObject({
  privateKeyEnv: EnvName.describe('env var with the key: 0x-hex (EVM), base58 or a JSON byte array (Solana)'),
})

const AssetConfig = z.strictObject({
  symbol: z.string().min(1),
  address: z.string().min(1).describe('token contract (EVM) or mint (Solana)'),
  decimals: z.number().int().min(0).max(36),
  eip712: z.strictObject({ name: z.string().min(1), version: z.string().min(1) }).optional(),
  transferMethods: z.array(Scheme).min(1),
  tokenProgram: z.string().min(1).optional(),
})

const NetworkConfig = z.strictObject({
  rpcUrl: z.url().optional(),
  rpcUrlEnv: EnvName.optional(),
  schemes: z.array(Scheme).min(1).describe('eip3009 / permit2 on eip155 networks, solana on solana ones'),
  signers: z.array(SignerRef).min(1).describe('relayer keys (EVM) or fee payers (Solana)'),
  assets: z.array(AssetConfig).optional().describe('allowlist; default: the known assets of the network'),
  gasLimitCap: Wei.optional(),
  maxFeePerGasCap: Wei.optional().describe('wei'),
  pollingIntervalMs: z.number().int().positive().optional().describe('RPC polling interval (50 suits anvil)'),
  nativeSymbol: z.string().min(1).optional().describe('native coin symbol for balances (default ETH / SOL)'),
  minAmounts: z
    .record(z.string().min(1), z.string().regex(/^\d+$/, 'must be an amount in atomic units'))
    .optional()
    .describe('fee floor: asset symbol or address -> smallest settled amount in atomic units ("0" = none)'),
})

const Window = z.strictObject({
  settles: z.number().int().nonnegative().describe('0 = no limit'),
  windowSeconds: z.number().int().positive(),
})

/** The `limits` of a facilitator configuration (dust and abuse; docs/facilitator.md, 'Limits'). */
export const SettleLimitsConfig = z.strictObject({
  defaultMinAmount: z
    .enum(['one-thousandth', 'none'])
    .default('one-thousandth')
    .describe('floor of an asset without minAmounts: 0.001 of one token, or none'),
  perPayer: Window.default({ settles: 60, windowSeconds: 60 }),
  perCaller: Window.default({ settles: 6000, windowSeconds: 60 }),
  revertCooldownSeconds: z.number().int().nonnegative().default(600).describe('0 = no cool-down'),
})
export type SettleLimitsConfig = z.input<typeof SettleLimitsConfig>

const EvmOptions = z.strictObject({
  receiptTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('settle answers settlement_pending after it'),
  eip6492AllowedFactories: z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/)).optional(),
})

const SolanaOptions = z.strictObject({
  confirmTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('settle answers settlement_pending after it'),
  limits: z
    .strictObject({
      maxComputeUnitLimit: z.number().int().positive().optional(),
      maxComputeUnitPriceMicroLamports: Wei.optional(),
      maxSigners: z.number().int().positive().optional(),
    })
    .optional(),
})

/** The JSON file `tollgate-facilitator --config` reads (secrets are env var names, never values). */
export const FacilitatorConfigFile = z.strictObject({
  port: z.number().int().min(0).max(65_535).default(4021),
  host: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('listen address; beyond loopback only with authTokenEnv'),
  authTokenEnv: EnvName.optional().describe(
    'env var with the bearer token callers must send; required when host is not loopback',
  ),
  databaseUrlEnv: EnvName.optional().describe('env var with a PostgreSQL URL; else PGlite in dataDir'),
  databaseSchema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .default('public')
    .describe('schema of the settlement table'),
  dataDir: z.string().min(1).default('.tollgate/facilitator'),
  reconcileIntervalMs: z.number().int().positive().default(15_000),
  leaseMs: z.number().int().positive().optional(),
  settleWaitTimeoutMs: z.number().int().positive().optional(),
  bodyLimitBytes: z.number().int().positive().optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  networks: z.record(Caip2Network, NetworkConfig),
  limits: SettleLimitsConfig.prefault({}),
  evm: EvmOptions.default({}),
  solana: SolanaOptions.default({}),
})
export type FacilitatorConfigFile = z.input<typeof FacilitatorConfigFile>

/** One configured network with its secrets read from the environment. */
export type NetworkSettings = Omit<
  z.output<typeof NetworkConfig>,
  'rpcUrl' | 'rpcUrlEnv' | 'signers' | 'assets' | 'schemes'
> & {
  network: Network
  family: NetworkFamily
  rpcUrl: string
  schemes: SchemeName[]
  /** Private keys as written in the env vars (format checked, not decoded). */
  privateKeys: string[]
  /** The asset allowlist of this network. */
  assets: Asset[]
}

/** A validated facilitator configuration, ready for the composition root. */
export type FacilitatorConfig = Omit<
  z.output<typeof FacilitatorConfigFile>,
  'networks' | 'authTokenEnv' | 'databaseUrlEnv' | 'limits'
> & {
  authToken?: string
  databaseUrl?: string
  networks: NetworkSettings[]
  limits: SettleLimits
}

/**
 * Validates a configuration file's JSON and resolves its env var references against `env`.
 * Pure: no file or process access. Throws `invalid_config` listing every problem by path.
 */
export function parseFacilitatorConfig(
  json: unknown,
  env: Readonly<Record<string, string | undefined>>,
): FacilitatorConfig {
  const parsed = FacilitatorConfigFile.safeParse(json)
  if (!parsed.success) {
    throw configError(
      Object.fromEntries(
        parsed.error.issues.map((issue) => [issue.path.map(String).join('.'), issue.message]),
      ),
    )
  }
  const { networks, authTokenEnv, databaseUrlEnv, limits, ...rest } = parsed.data
  const issues: Record<string, string> = {}
  const read = (path: string, name: string | undefined): string | undefined => {
    if (name === undefined) {
      return undefined
    }
    const value = env[name]?.trim()
    if (!value) {
      issues[path] = `environment variable ${name} is not set`
    }
    return value || undefined
  }
  const authToken = read('authTokenEnv', authTokenEnv)
  const exposure = describeOpenExposure(rest.host, authTokenEnv !== undefined)
  if (exposure) {
    issues.authTokenEnv = exposure
  }
  const databaseUrl = read('databaseUrlEnv', databaseUrlEnv)
  const settings = Object.entries(networks).map(([id, config]) =>
    toNetworkSettings(id as Network, config, read, issues),
  )
  if (settings.length === 0) {
    issues.networks = 'configure at least one network'
  }
  const settleLimits = resolveSettleLimits(settings, limits, issues)
  if (Object.keys(issues).length > 0) {
    throw configError(issues)
  }
  return {
    ...rest,
    ...(authToken ? { authToken } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    networks: settings,
    limits: settleLimits,
  }
}

/**
 * The facilitator's {@link SettleLimits} from its networks (`minAmounts` by asset symbol or address)
 * and its `limits` section; an asset without a floor gets `defaultMinAmount`. A `minAmounts` key no
 * asset of its network matches is reported in `issues` (else it throws `invalid_config`).
 */
export function resolveSettleLimits(
  networks: readonly Pick<NetworkSettings, 'network' | 'assets' | 'minAmounts'>[],
  input: SettleLimitsConfig = {},
  issues?: Record<string, string>,
): SettleLimits {
  const limits = SettleLimitsConfig.parse(input)
  const found: Record<string, string> = {}
  const minAmounts = new Map<string, bigint>()
  for (const { network, assets, minAmounts: configured = {} } of networks) {
    for (const asset of assets) {
      const floor = limits.defaultMinAmount === 'none' ? 0n : 10n ** BigInt(Math.max(0, asset.decimals - 3))
      minAmounts.set(toMinAmountKey(network, asset.address), floor)
    }
    for (const [name, amount] of Object.entries(configured)) {
      const asset = assets.find(
        (candidate) => candidate.symbol === name || candidate.address.toLowerCase() === name.toLowerCase(),
      )
      if (!asset) {
        found[`networks.${network}.minAmounts.${name}`] = `no asset ${name} on ${network}`
        continue
      }
      minAmounts.set(toMinAmountKey(network, asset.address), BigInt(amount))
    }
  }
  if (Object.keys(found).length > 0) {
    if (!issues) {
      throw configError(found)
    }
    Object.assign(issues, found)
  }
  return {
    minAmounts,
    perPayer: { settles: limits.perPayer.settles, windowMs: limits.perPayer.windowSeconds * 1000 },
    perCaller: { settles: limits.perCaller.settles, windowMs: limits.perCaller.windowSeconds * 1000 },
    revertCooldownMs: limits.revertCooldownSeconds * 1000,
  }
}

/**
 * Why a facilitator listening on `host` without a token is refused (an open `/settle` on a reachable
 * port lets anyone spend the relayer's gas), or `undefined` when it may start: a token is set, or
 * the host is loopback (the quickstart and the sandbox).
 */
export function describeOpenExposure(host: string, hasToken: boolean): string | undefined {
  if (hasToken || isLoopbackHost(host)) {
    return undefined
  }
  return `required when host (${host}) is not loopback: without a bearer token anyone who reaches the port can settle and spend the relayer's gas; set authTokenEnv or listen on 127.0.0.1`
}

function toNetworkSettings(
  network: Network,
  config: z.output<typeof NetworkConfig>,
  read: (path: string, name: string | undefined) => string | undefined,
  issues: Record<string, string>,
): NetworkSettings {
  const at = `networks.${network}`
  const family = getNetworkFamily(network)
  if (!family) {
    issues[at] = 'only eip155:<chainId> and solana:<genesis> networks are supported'
  }
  const allowed: readonly SchemeName[] = family === 'svm' ? ['solana'] : ['eip3009', 'permit2']
  const wrong = config.schemes.filter((scheme) => !allowed.includes(scheme))
  if (wrong.length > 0) {
    issues[`${at}.schemes`] = `${wrong.join(', ')} cannot run on ${network}; use ${allowed.join(' or ')}`
  }
  if (!config.rpcUrl === !config.rpcUrlEnv) {
    issues[`${at}.rpcUrl`] = 'set exactly one of rpcUrl and rpcUrlEnv'
  }
  const rpcUrl = config.rpcUrl ?? read(`${at}.rpcUrlEnv`, config.rpcUrlEnv) ?? ''
  const privateKeys = config.signers.map((signer, i) => {
    const path = `${at}.signers.${i}.privateKeyEnv`
    const key = read(path, signer.privateKeyEnv) ?? ''
    if (key && !isPrivateKey(family, key)) {
      issues[path] =
        `${signer.privateKeyEnv} does not hold a ${family === 'svm' ? 'Solana' : 'EVM'} private key`
    }
    return key
  })
  const assets = config.assets
    ? config.assets.map((asset) => ({ ...asset, network }) as Asset)
    : DEFAULT_ASSETS.filter((asset) => asset.network === network)
  if (assets.length === 0) {
    issues[`${at}.assets`] = `no known assets on ${network}; list the allowlisted assets`
  }
  const { rpcUrl: _url, rpcUrlEnv: _env, signers: _signers, assets: _assets, schemes, ...limits } = config
  return {
    network,
    family: family ?? 'evm',
    rpcUrl,
    schemes: [...new Set(schemes)],
    privateKeys,
    assets,
    ...limits,
  }
}

function isPrivateKey(family: NetworkFamily | undefined, key: string): boolean {
  if (family === 'evm') {
    return /^0x[0-9a-fA-F]{64}$/.test(key)
  }
  // Solana: a base58 64-byte keypair (87-88 chars) or solana-keygen's JSON byte array.
  if (key.startsWith('[')) {
    try {
      const bytes: unknown = JSON.parse(key)
      return (
        Array.isArray(bytes) &&
        bytes.length === 64 &&
        bytes.every((b) => Number.isInteger(b) && b >= 0 && b < 256)
      )
    } catch {
      return false
    }
  }
  return /^[1-9A-HJ-NP-Za-km-z]{86,88}$/.test(key)
}

function configError(issues: Record<string, string>): AppError<'invalid_config'> {
  const lines = Object.entries(issues).map(([path, message]) => `  ${path || '(root)'}: ${message}`)
  return new AppError('invalid_config', {
    context: { issues },
    message: `invalid facilitator configuration:\n${lines.join('\n')}`,
  })
}
