import {
  AppError,
  FacilitatorRequest,
  type NormalizedFacilitatorRequest,
  normalizeFacilitatorRequest,
  toCaip2Network,
} from '@tollgate/core'
import { LRUCache } from 'lru-cache'
import { getAddress, isAddress } from 'viem'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ChainAsset, ChainEntry } from '../rails/types.js'
import { findAddressOwner } from './find-address-owner.js'

/** A verify or settle body checked against the merchant: its chain, asset and a payTo the merchant owns. */
export type MerchantX402Request = {
  request: FacilitatorRequest
  normalized: NormalizedFacilitatorRequest
  entry: ChainEntry
  asset: ChainAsset & { address: string }
  payTo: string
  amount: bigint
  /** Whether payTo is one of the merchant's own (custodied) addresses, so settled funds credit its balance. */
  custodied: boolean
}

/** Most payTo verdicts one {@link PayToCache} remembers; the least recently used is dropped beyond it. */
export const payToCacheMax = 10_000

/**
 * Remembered payTo verdicts, by merchant, environment, network and address: `custodied` (the
 * merchant's x402 deposit address) or `named` (a payTo it named in requirements). Only these are
 * remembered because neither can stop being true: deposit addresses are never reassigned and payees
 * are never removed. An unknown payTo is looked up every time, so one named a moment ago is accepted
 * at once.
 */
export type PayToCache = LRUCache<string, 'custodied' | 'named'>

/** A bounded {@link PayToCache}; the x402 routes own one. */
export function createPayToCache(): PayToCache {
  return new LRUCache({ max: payToCacheMax })
}

/**
 * Parses an x402 facilitator body (v1 or v2) and resolves its network and token through the chain
 * registry. `payToAllowed` is false when the payment goes to an address that is neither one of the
 * merchant's x402 addresses nor a payTo it named in POST /x402/requirements.
 */
export async function parseX402Request(
  deps: Pick<Deps, 'db' | 'rails'>,
  input: { merchantId: string; environment: KeyEnvironment; body: unknown },
  payToCache?: PayToCache,
): Promise<MerchantX402Request & { payToAllowed: boolean }> {
  const parsed = FacilitatorRequest.safeParse(input.body)
  if (!parsed.success) {
    const issues = Object.fromEntries(parsed.error.issues.map((i) => [i.path.join('.') || 'body', i.message]))
    throw new AppError('invalid_request', { message: 'Not an x402 payment request', context: { issues } })
  }
  const normalized = normalizeFacilitatorRequest(parsed.data)
  const requirements = normalized.paymentRequirements
  const network = toCaip2Network(requirements.network)
  const entry = deps.rails.chains.getByNetwork(input.environment, network)
  const asset = entry?.assets.find((a) => a.address !== null && sameAddress(a.address, requirements.asset))
  if (!entry || !asset?.address) {
    throw new AppError('unknown_asset', {
      message: `${requirements.asset} on ${network} is not an asset Tollgate settles`,
      context: { network, asset: requirements.asset },
    })
  }
  const payTo =
    entry.family === 'evm' && isAddress(requirements.payTo)
      ? getAddress(requirements.payTo)
      : requirements.payTo
  const cacheKey = [input.merchantId, input.environment, entry.network, payTo].join('|')
  const verdict = payToCache?.get(cacheKey) ?? (await lookUpPayTo(deps, { ...input, entry, payTo }))
  if (verdict !== undefined) {
    payToCache?.set(cacheKey, verdict)
  }
  return {
    request: parsed.data,
    normalized,
    entry,
    asset: { ...asset, address: asset.address },
    payTo,
    amount: BigInt(requirements.amount),
    custodied: verdict === 'custodied',
    payToAllowed: verdict !== undefined,
  }
}

async function lookUpPayTo(
  deps: Pick<Deps, 'db' | 'rails'>,
  input: { merchantId: string; environment: KeyEnvironment; entry: ChainEntry; payTo: string },
): Promise<'custodied' | 'named' | undefined> {
  // Who owns the address decides, before anything the merchant named: a platform address that is
  // not this merchant's (another merchant's deposit address, the treasury) is refused even when an
  // older release let the merchant name it as a payee (docs/security.md "Who is credited").
  const owner = await findAddressOwner(deps, {
    environment: input.environment,
    entry: input.entry,
    address: input.payTo,
  })
  if (
    owner.kind === 'platform' ||
    (owner.kind === 'deposit' && owner.address.merchantId !== input.merchantId)
  ) {
    return undefined
  }
  if (owner.kind === 'deposit' && owner.address.purpose === 'x402') {
    return 'custodied'
  }
  const named = await deps.db
    .selectFrom('x402_payees')
    .select('address')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('network', '=', input.entry.network)
    .where('address', '=', input.payTo)
    .executeTakeFirst()
  return named ? 'named' : undefined
}

function sameAddress(a: string, b: string): boolean {
  return a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b
}
