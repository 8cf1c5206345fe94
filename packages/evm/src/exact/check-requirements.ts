import {
  type Asset,
  type AssetRegistry,
  findAcceptedMismatch,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SchemeName,
  sameAddress,
} from '@tollgate/core'

/** A failed check: the x402 reason and a message for people. */
export type CheckFailure = { reason: string; message?: string }

/**
 * The requirement checks every exact-EVM verify starts with (docs/x402.md, 'Where Tollgate is stricter'):
 * scheme and network, then `accepted` compared with `requirements` field by field (`extra` may be
 * a superset), a non-zero amount, and the asset on the allowlist for this scheme.
 * Returns the allowlisted asset, or the failure.
 */
export function checkExactRequirements(
  scheme: Extract<SchemeName, 'eip3009' | 'permit2'>,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  assets: AssetRegistry,
): { asset: Asset } | CheckFailure {
  const { accepted } = payment
  if (accepted.scheme !== 'exact' || requirements.scheme !== 'exact') {
    return { reason: REASONS.evmScheme }
  }
  if (accepted.network !== requirements.network) {
    return { reason: REASONS.evmNetworkMismatch }
  }
  const mismatch = findAcceptedMismatch(accepted, requirements)
  if (mismatch) {
    return {
      reason: REASONS.invalidPaymentRequirements,
      message: `accepted.${mismatch} differs from the payment requirements`,
    }
  }
  if (BigInt(requirements.amount) === 0n) {
    return { reason: REASONS.invalidPaymentRequirements, message: 'amount must be greater than zero' }
  }
  // Allowlist (docs/x402.md, 'Where Tollgate is stricter'): an arbitrary `asset` contract could pass simulation and burn relayer gas.
  const asset = assets.find(requirements.network, requirements.asset)
  if (!asset || !sameAddress(asset.network, asset.address, requirements.asset)) {
    return {
      reason: REASONS.invalidPaymentRequirements,
      message: `asset_not_allowed: ${requirements.asset} is not an allowlisted asset on ${requirements.network}`,
    }
  }
  if (!asset.transferMethods.includes(scheme)) {
    return {
      reason: REASONS.invalidPaymentRequirements,
      message: `asset_not_allowed: ${asset.symbol} on ${asset.network} is not payable with ${scheme}`,
    }
  }
  return { asset }
}
