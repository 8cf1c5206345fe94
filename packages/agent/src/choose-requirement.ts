import './errors.js'
import {
  AppError,
  type Asset,
  type AssetRegistry,
  getSchemeName,
  type PaymentRequirements,
  parseDollarPrice,
  type SchemeClient,
  type SchemeName,
  sameAddress,
  toCaip2Network,
} from '@tollgate/core'
import type { PolicyRule } from './errors.js'
import type { SpendPolicy } from './types.js'

/** USD amounts are compared in units of 1e-18 dollars, so 6- and 18-decimal tokens compare exactly. */
export const USD_DECIMALS = 18

const DEFAULT_MAX_PER_PAYMENT = '$1'

/** A requirement the agent can and may pay. */
export type Candidate = {
  index: number
  requirements: PaymentRequirements
  client: SchemeClient
  scheme: SchemeName
  asset: Asset
  /** Price in 1e-18 dollars. */
  usd: bigint
}

type Refusal = { rule: PolicyRule; detail: string }

/**
 * Every requirement of a 402 the agent holds a key for and the policy allows, cheapest first (in
 * USD, ties keep the server's order). Throws `payment_unpayable` when no key fits any option, or
 * `payment_policy_refused` with the rule that refused the first option it could have paid.
 */
export function getPayableCandidates(
  accepts: readonly PaymentRequirements[],
  context: { url: string; clients: readonly SchemeClient[]; assets: AssetRegistry; policy: SpendPolicy },
): Candidate[] {
  const candidates: Candidate[] = []
  let firstRefusal: Refusal | undefined
  accepts.forEach((requirements, index) => {
    const scheme = getSchemeName(requirements)
    const client = context.clients.find((c) => c.name === scheme && c.canPay(requirements))
    if (!client || !scheme) {
      return
    }
    const asset = context.assets.find(requirements.network, requirements.asset)
    const refusal = getRefusal(requirements, asset, context.policy)
    if (refusal || !asset) {
      firstRefusal ??= refusal
      return
    }
    candidates.push({
      index,
      requirements,
      client,
      scheme,
      asset,
      usd: toUsd(BigInt(requirements.amount), asset.decimals),
    })
  })
  if (candidates.length > 0) {
    return candidates.sort((a, b) => (a.usd === b.usd ? a.index - b.index : a.usd < b.usd ? -1 : 1))
  }
  if (firstRefusal) {
    throw new AppError('payment_policy_refused', {
      context: { rule: firstRefusal.rule, url: context.url, detail: firstRefusal.detail },
      message: `payment refused by policy (${firstRefusal.rule}): ${firstRefusal.detail}`,
    })
  }
  const offered = accepts.map((r) => `${getSchemeName(r) ?? r.scheme} on ${r.network}`)
  throw new AppError('payment_unpayable', {
    context: { url: context.url, offered },
    message: `no wallet can pay any option offered (${offered.join(', ')})`,
  })
}

function getRefusal(
  requirements: PaymentRequirements,
  asset: Asset | undefined,
  policy: SpendPolicy,
): Refusal | undefined {
  const { network, payTo } = requirements
  if (policy.allowedNetworks && !policy.allowedNetworks.some((entry) => matchesNetwork(entry, network))) {
    return { rule: 'network', detail: `${network} is not an allowed network` }
  }
  if (!asset) {
    return { rule: 'asset', detail: `unknown asset ${requirements.asset} on ${network} (cannot value it)` }
  }
  const allowedAssets = policy.allowedAssets
  if (
    allowedAssets &&
    !allowedAssets.some(
      (entry) =>
        entry.toUpperCase() === asset.symbol.toUpperCase() || sameAddress(network, entry, asset.address),
    )
  ) {
    return { rule: 'asset', detail: `${asset.symbol} on ${network} is not an allowed asset` }
  }
  if (policy.allowedPayees && !policy.allowedPayees.some((entry) => sameAddress(network, entry, payTo))) {
    return { rule: 'payee', detail: `${payTo} is not an allowed payee` }
  }
  const usd = toUsd(BigInt(requirements.amount), asset.decimals)
  const max = parseDollarPrice(policy.maxPerPayment ?? DEFAULT_MAX_PER_PAYMENT, USD_DECIMALS)
  if (usd > max) {
    return {
      rule: 'max_per_payment',
      detail: `$${formatUsd(usd)} is above the per-payment limit of $${formatUsd(max)}`,
    }
  }
  return undefined
}

/** Whether `url`'s host is allowed (`*.example.com` matches subdomains; an entry with a port matches host:port). */
export function isHostAllowed(url: URL, allowedHosts: readonly string[] | undefined): boolean {
  if (!allowedHosts) {
    return true
  }
  const hostname = url.hostname.toLowerCase()
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '')
  return allowedHosts.some((raw) => {
    const entry = raw.toLowerCase()
    if (entry.startsWith('*.')) {
      return hostname.endsWith(entry.slice(1))
    }
    return entry.includes(':') ? `${hostname}:${port}` === entry : hostname === entry
  })
}

function matchesNetwork(entry: string, network: string): boolean {
  if (entry.endsWith(':*')) {
    return network.startsWith(entry.slice(0, -1))
  }
  try {
    return toCaip2Network(entry) === network
  } catch {
    return false
  }
}

/** Atomic units of an asset with `decimals` places → 1e-18 dollars (rounded up past 18 decimals). */
export function toUsd(amount: bigint, decimals: number): bigint {
  if (decimals <= USD_DECIMALS) {
    return amount * 10n ** BigInt(USD_DECIMALS - decimals)
  }
  const divisor = 10n ** BigInt(decimals - USD_DECIMALS)
  return (amount + divisor - 1n) / divisor
}

/** 1e-18 dollars → a short decimal string (`10000000000000000n` → `"0.01"`). */
export function formatUsd(usd: bigint): string {
  const digits = usd.toString().padStart(USD_DECIMALS + 1, '0')
  const whole = digits.slice(0, -USD_DECIMALS)
  const fraction = digits.slice(-USD_DECIMALS).replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : whole
}
