import './errors.js'
import {
  AppError,
  type Asset,
  type AssetRegistry,
  getNetworkFamily,
  isAppError,
  parseAtomicAmount,
  parseDollarPrice,
  type ResourceInfo,
  type SchemeServer,
  toCaip2Network,
} from '@tollgate/core'
import type { AcceptOption, PaymentFlow, PayTo, Price, RouteConfig, RoutesConfig } from './types.js'

/** One accept option with its asset, amount and payee resolved at startup. */
export type CompiledAccept = {
  server: SchemeServer
  asset: Asset
  amount: bigint
  payTo: string
  maxTimeoutSeconds?: number
  extra?: Record<string, unknown>
  /** The scheme needs the facilitator's `/supported` kind (Solana fee payer). */
  needsSupported: boolean
}

/** A protected route, ready to match requests and build requirements. */
export type CompiledRoute = {
  key: string
  method?: string
  path?: RegExp
  accepts: CompiledAccept[]
  resource: Partial<ResourceInfo>
  flow: PaymentFlow
}

type CompileDefaults = {
  schemes: readonly SchemeServer[]
  assets: AssetRegistry
  payTo?: PayTo
  flow: PaymentFlow
}

/** Resolves every route's assets, prices and payees once, so configuration errors surface at startup. */
export function compileRoutes(routes: RoutesConfig, defaults: CompileDefaults): CompiledRoute[] {
  if (isRouteConfig(routes)) {
    return [compileRoute('*', routes, defaults)]
  }
  return Object.entries(routes).map(([key, route]) => compileRoute(key, route, defaults))
}

/** The first route whose method and path pattern match, if any. */
export function findRoute(
  routes: readonly CompiledRoute[],
  method: string,
  path: string,
): CompiledRoute | undefined {
  return routes.find(
    (route) =>
      (route.method === undefined || route.method === method) &&
      (route.path === undefined || route.path.test(path)),
  )
}

function isRouteConfig(routes: RoutesConfig): routes is RouteConfig {
  return 'accepts' in routes && typeof routes.accepts === 'object' && routes.accepts !== null
}

function compileRoute(key: string, route: RouteConfig, defaults: CompileDefaults): CompiledRoute {
  const { method, path } = parseRouteKey(key)
  const options: readonly AcceptOption[] = Array.isArray(route.accepts) ? route.accepts : [route.accepts]
  if (options.length === 0) {
    throw configError(key, 'a route needs at least one accept option')
  }
  return {
    key,
    ...(method ? { method } : {}),
    ...(path ? { path } : {}),
    accepts: options.map((option) => compileAccept(key, option, route, defaults)),
    resource: {
      ...(route.description !== undefined ? { description: route.description } : {}),
      ...(route.mimeType !== undefined ? { mimeType: route.mimeType } : {}),
      ...route.resource,
    },
    flow: route.flow ?? defaults.flow,
  }
}

function compileAccept(
  key: string,
  option: AcceptOption,
  route: RouteConfig,
  defaults: CompileDefaults,
): CompiledAccept {
  const network = wrapConfigError(key, () => toCaip2Network(option.network))
  const server = defaults.schemes.find((s) => s.name === option.scheme)
  if (!server) {
    throw configError(key, `no scheme server for ${option.scheme} (pass it in \`schemes\`)`)
  }
  const asset = wrapConfigError(key, () => defaults.assets.get(network, option.asset ?? 'USDC'))
  if (!asset.transferMethods.includes(option.scheme)) {
    throw configError(key, `${asset.symbol} on ${network} cannot be paid with ${option.scheme}`)
  }
  const price = option.price ?? route.price
  if (price === undefined) {
    throw configError(key, `no price for ${option.scheme} on ${network}`)
  }
  const payTo = option.payTo ?? pickPayTo(route.payTo, network) ?? pickPayTo(defaults.payTo, network)
  if (!payTo) {
    throw configError(key, `no payTo for ${network}`)
  }
  return {
    server,
    asset,
    amount: wrapConfigError(key, () => toAtomicAmount(price, asset.decimals)),
    payTo,
    ...(option.maxTimeoutSeconds !== undefined ? { maxTimeoutSeconds: option.maxTimeoutSeconds } : {}),
    ...(option.extra ? { extra: option.extra } : {}),
    needsSupported: option.scheme === 'solana',
  }
}

/** Converts a {@link Price} into atomic units of an asset with `decimals` places. */
export function toAtomicAmount(price: Price, decimals: number): bigint {
  if (typeof price === 'object') {
    const amount = typeof price.amount === 'bigint' ? price.amount.toString() : price.amount
    return parseAtomicAmount(amount)
  }
  return parseDollarPrice(price, decimals)
}

function pickPayTo(payTo: PayTo | undefined, network: string): string | undefined {
  if (payTo === undefined || typeof payTo === 'string') {
    return payTo
  }
  const family = getNetworkFamily(network)
  return family ? payTo[family] : undefined
}

const METHOD = /^([A-Z]+|\*)\s+(\S+)$/

function parseRouteKey(key: string): { method?: string; path?: RegExp } {
  const trimmed = key.trim()
  if (trimmed === '*') {
    return {}
  }
  const match = METHOD.exec(trimmed)
  const method = match?.[1] === '*' ? undefined : match?.[1]
  const pattern = match?.[2] ?? trimmed
  if (!pattern.startsWith('/')) {
    throw configError(key, 'route keys look like "GET /path", "/path/*" or "*"')
  }
  return { ...(method ? { method } : {}), path: toPathRegExp(pattern) }
}

// `*` matches anything (also across segments), `:name` one non-empty segment; a trailing slash is
// optional, and `/api/*` also matches `/api` itself (as in hono).
function toPathRegExp(pattern: string): RegExp {
  const wildcardTail = pattern.endsWith('/*')
  const source = (wildcardTail ? pattern.slice(0, -2) : pattern)
    .replace(/\/+$/, '')
    .split(/(\*|:[A-Za-z0-9_]+)/)
    .map((part) => {
      if (part === '*') {
        return '.*'
      }
      return part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('')
  return new RegExp(wildcardTail ? `^${source}(?:/.*)?$` : `^${source}/?$`)
}

function configError(route: string, detail: string): AppError<'middleware_config_invalid'> {
  return new AppError('middleware_config_invalid', {
    context: { route, detail },
    message: `payment route "${route}": ${detail}`,
  })
}

function wrapConfigError<T>(route: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (isAppError(error)) {
      throw new AppError('middleware_config_invalid', {
        context: { route, detail: error.message },
        cause: error,
        message: `payment route "${route}": ${error.message}`,
      })
    }
    throw error
  }
}
