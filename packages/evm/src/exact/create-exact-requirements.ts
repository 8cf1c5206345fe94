import {
  AppError,
  type CreateRequirementsParameters,
  type PaymentRequirements,
  type SchemeName,
} from '@tollgate/core'
import { getAddress, isAddress } from 'viem'
import { DEFAULT_MAX_TIMEOUT_SECONDS } from '../constants.js'

/**
 * Builds x402 `exact` EVM requirements for `scheme`: amount as an atomic decimal string, checksummed
 * asset and payTo, `extra` carrying the token's EIP-712 domain and, for Permit2, the transfer method.
 */
export function createExactRequirements(
  scheme: Extract<SchemeName, 'eip3009' | 'permit2'>,
  parameters: CreateRequirementsParameters,
): PaymentRequirements {
  const { asset, amount, payTo } = parameters
  const fail = (problem: string): never => {
    throw new AppError('evm_invalid_requirements', {
      context: { network: asset.network, asset: asset.address, problem },
      message: `cannot build ${scheme} requirements: ${problem}`,
    })
  }
  if (!asset.transferMethods.includes(scheme)) {
    fail(`asset ${asset.symbol} does not support ${scheme}`)
  }
  if (amount <= 0n) {
    fail('amount must be greater than zero')
  }
  if (!isAddress(payTo, { strict: false })) {
    fail(`payTo ${payTo} is not an EVM address`)
  }
  if (scheme === 'eip3009' && !asset.eip712) {
    throw new AppError('evm_missing_eip712_domain', {
      context: { network: asset.network, asset: asset.address },
      message: `asset ${asset.symbol} on ${asset.network} has no EIP-712 domain`,
    })
  }
  const domain = asset.eip712 ? { name: asset.eip712.name, version: asset.eip712.version } : {}
  return {
    scheme: 'exact',
    network: asset.network,
    amount: amount.toString(),
    asset: getAddress(asset.address),
    payTo: getAddress(payTo),
    maxTimeoutSeconds: parameters.maxTimeoutSeconds ?? DEFAULT_MAX_TIMEOUT_SECONDS,
    extra: {
      ...domain,
      ...(scheme === 'permit2' ? { assetTransferMethod: 'permit2' } : {}),
      ...parameters.extra,
    },
  }
}
