import {
  AppError,
  type Asset,
  type FacilitatorClient,
  formatAtomicAmount,
  type Network,
  type PaymentRequirements,
  parseDecimalAmount,
  type SchemeName,
  type SchemeServer,
} from '@tollgate/core'
import { createEip3009Server, createPermit2Server } from '@tollgate/evm'
import { createSolanaServer } from '@tollgate/svm'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ChainEntry } from '../rails/types.js'
import { findAddressOwner, toStoredAddress } from './find-address-owner.js'
import type { RequirementsBody } from './schemas.js'

/** Default `resource` of requirements that name none (the field is required on the x402 v1 wire). */
export const defaultX402Resource = 'urn:tollgate:x402:payment'

const servers: Record<SchemeName, SchemeServer> = {
  eip3009: createEip3009Server(),
  permit2: createPermit2Server(),
  solana: createSolanaServer(),
}

/** A registry chain and asset that x402 can settle (an EVM token or an SPL mint), as core's {@link Asset}. */
export type X402Asset = { entry: ChainEntry; asset: Asset }

/** Resolves a chain name and asset symbol to an x402-payable token; 400 `unsupported_asset_chain` otherwise. */
export function resolveX402Asset(
  deps: Pick<Deps, 'rails'>,
  input: { environment: KeyEnvironment; chain: RequirementsBody['chain']; asset: string },
): X402Asset {
  const entry = deps.rails.chains.get(input.environment, input.chain)
  const token = deps.rails.chains.findAsset(input.environment, input.chain, input.asset)
  if (!entry || !token?.address || (entry.family !== 'evm' && entry.family !== 'solana')) {
    throw new AppError('unknown_asset', {
      message: `${input.asset} on ${input.chain} cannot be paid with x402`,
      context: { network: entry?.network ?? input.chain, asset: input.asset },
    })
  }
  const transferMethods: SchemeName[] =
    entry.family === 'solana' ? ['solana'] : token.eip712 ? ['eip3009', 'permit2'] : ['permit2']
  const asset: Asset = {
    network: entry.network as Network,
    symbol: token.symbol,
    address: token.address,
    decimals: token.decimals,
    transferMethods,
    ...(token.eip712 ? { eip712: token.eip712 } : {}),
    ...(token.tokenProgram ? { tokenProgram: token.tokenProgram } : {}),
  }
  return { entry, asset }
}

/**
 * Builds the payment requirements of POST /x402/requirements with the scheme servers of
 * `@tollgate/evm` and `@tollgate/svm`: one `exact` offer per way the token can be paid, paying the
 * merchant's own x402 address unless the body names a payTo, which is then remembered as one the
 * merchant chose (docs/x402-merchant.md).
 */
export async function buildRequirements(
  deps: Pick<Deps, 'db' | 'rails' | 'clock'>,
  facilitator: FacilitatorClient,
  input: { merchantId: string; environment: KeyEnvironment; body: RequirementsBody },
) {
  const { body } = input
  const { entry, asset } = resolveX402Asset(deps, { ...input, chain: body.chain, asset: body.asset })
  const amount = parseDecimalAmount(body.amount, asset.decimals)
  const payTo = await resolvePayTo(deps, { ...input, entry })
  const accepts = await createOffers(facilitator, {
    entry,
    asset,
    amount,
    payTo,
    methods: asset.transferMethods,
    ...(body.maxTimeoutSeconds === undefined ? {} : { maxTimeoutSeconds: body.maxTimeoutSeconds }),
  })
  const resource = body.resource ?? defaultX402Resource
  const base = { chain: body.chain, asset: asset.symbol, amount: formatAtomicAmount(amount, asset.decimals) }
  if (body.x402Version === 2) {
    const info = {
      url: resource,
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.mimeType === undefined ? {} : { mimeType: body.mimeType }),
    }
    return { x402Version: 2, ...base, resource: info, accepts }
  }
  return { x402Version: 1, ...base, accepts: accepts.map((r) => toV1Fields(r, body, resource)) }
}

/**
 * One x402 v2 `exact` offer per transfer method of `asset`, built by the scheme servers of
 * `@tollgate/evm` and `@tollgate/svm` with what the facilitator reports for the network (Solana's fee
 * payer). 503 `provider_unavailable` when the facilitator does not settle on the network.
 */
export async function createOffers(
  facilitator: FacilitatorClient,
  input: X402Asset & {
    amount: bigint
    payTo: string
    methods: readonly SchemeName[]
    maxTimeoutSeconds?: number
  },
): Promise<PaymentRequirements[]> {
  const supported = await facilitator.getSupported()
  const supportedKind = supported.kinds.find((k) => k.x402Version === 2 && k.network === input.entry.network)
  if (!supportedKind) {
    throw new AppError('provider_unavailable', {
      message: `The facilitator does not settle on ${input.entry.chain} (${input.entry.network})`,
    })
  }
  return input.methods.map((method) =>
    servers[method].createRequirements({
      asset: input.asset,
      amount: input.amount,
      payTo: input.payTo,
      supportedKind,
      ...(input.maxTimeoutSeconds === undefined ? {} : { maxTimeoutSeconds: input.maxTimeoutSeconds }),
    }),
  )
}

// The spec's v1 fields (`maxAmountRequired`, resource per offer) with the CAIP-2 network it shows.
function toV1Fields(requirements: PaymentRequirements, body: RequirementsBody, resource: string) {
  const { amount, ...rest } = requirements
  return {
    ...rest,
    maxAmountRequired: amount,
    resource,
    description: body.description ?? '',
    mimeType: body.mimeType ?? 'application/json',
  }
}

async function resolvePayTo(
  deps: Pick<Deps, 'db' | 'rails' | 'clock'>,
  input: { merchantId: string; environment: KeyEnvironment; body: RequirementsBody; entry: ChainEntry },
): Promise<string> {
  const { body, entry } = input
  if (body.payTo === undefined) {
    const address = await deps.rails.addresses.allocate(deps.db, {
      merchantId: input.merchantId,
      environment: input.environment,
      chain: entry.chain,
      purpose: 'x402',
      ownerId: input.merchantId,
    })
    return address.address
  }
  if (!deps.rails.chains.isValidAddress(entry.chain, body.payTo)) {
    throw new AppError('validation_error', {
      message: `payTo is not a ${entry.chain} address`,
      context: { param: 'payTo' },
    })
  }
  // A platform address pays only its owner: naming another merchant's deposit address (or the
  // treasury) would let this merchant settle, and be recorded for, payments that belong to it.
  const owner = await findAddressOwner(deps, { environment: input.environment, entry, address: body.payTo })
  if (
    owner.kind === 'platform' ||
    (owner.kind === 'deposit' && owner.address.merchantId !== input.merchantId)
  ) {
    throw new AppError('pay_to_not_allowed', {
      message: `payTo ${body.payTo} is a Tollgate address that does not belong to this merchant`,
      context: { param: 'payTo' },
    })
  }
  if (owner.kind === 'deposit' && owner.address.purpose === 'x402') {
    return owner.address.address
  }
  const payTo = toStoredAddress(entry, body.payTo)
  await deps.db
    .insertInto('x402_payees')
    .values({
      merchant_id: input.merchantId,
      environment: input.environment,
      network: entry.network,
      address: payTo,
      created_at: deps.clock.now(),
    })
    .onConflict((oc) => oc.doNothing())
    .execute()
  return payTo
}
