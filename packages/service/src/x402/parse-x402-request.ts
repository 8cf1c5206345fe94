import {
  AppError,
  FacilitatorRequest,
  type NormalizedFacilitatorRequest,
  normalizeFacilitatorRequest,
  toCaip2Network,
} from '@tollgate/core'
import { getAddress, isAddress } from 'viem'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ChainAsset, ChainEntry } from '../rails/types.js'

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

/**
 * Parses an x402 facilitator body (v1 or v2) and resolves its network and token through the chain
 * registry. `payToAllowed` is false when the payment goes to an address that is neither one of the
 * merchant's x402 addresses nor a payTo it named in POST /x402/requirements.
 */
export async function parseX402Request(
  deps: Pick<Deps, 'db' | 'rails'>,
  input: { merchantId: string; environment: KeyEnvironment; body: unknown },
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
  const own = await deps.rails.addresses.find(deps.db, {
    environment: input.environment,
    chain: entry.chain,
    address: payTo,
  })
  const custodied = own?.merchantId === input.merchantId && own.purpose === 'x402'
  const named = custodied
    ? undefined
    : await deps.db
        .selectFrom('x402_payees')
        .select('address')
        .where('merchant_id', '=', input.merchantId)
        .where('environment', '=', input.environment)
        .where('network', '=', entry.network)
        .where('address', '=', payTo)
        .executeTakeFirst()
  return {
    request: parsed.data,
    normalized,
    entry,
    asset: { ...asset, address: asset.address },
    payTo,
    amount: BigInt(requirements.amount),
    custodied,
    payToAllowed: custodied || named !== undefined,
  }
}

function sameAddress(a: string, b: string): boolean {
  return a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b
}
