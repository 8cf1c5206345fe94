import { isAddress } from '@solana/kit'
import {
  AppError,
  type CreateRequirementsParameters,
  type PaymentRequirements,
  type SchemeServer,
} from '@tollgate/core'
import { MAX_MEMO_BYTES } from './constants.js'
import { getSolanaPaymentKey } from './payment-key.js'

/**
 * Creates the merchant side of the `solana` scheme: x402 `exact` requirements whose
 * `extra.feePayer` is the facilitator's (from its `/supported` kind), with an optional `extra.memo`
 * (at most 256 UTF-8 bytes) that the payment must carry exactly.
 */
export function createSolanaServer(): SchemeServer {
  return {
    name: 'solana',
    getPaymentKey: getSolanaPaymentKey,
    createRequirements: (parameters: CreateRequirementsParameters): PaymentRequirements => {
      const { asset, amount, payTo } = parameters
      if (!asset.transferMethods.includes('solana')) {
        throw new AppError('unsupported_scheme', {
          context: { scheme: 'solana', network: asset.network },
          message: `${asset.symbol} on ${asset.network} cannot be paid with the solana scheme`,
        })
      }
      if (amount <= 0n) {
        throw new AppError('invalid_amount', {
          context: { value: amount.toString() },
          message: 'amount must be positive',
        })
      }
      const feePayer = parameters.supportedKind?.extra?.feePayer
      const issues: Record<string, string> = {}
      if (typeof feePayer !== 'string' || !isAddress(feePayer)) {
        issues['supportedKind.extra.feePayer'] = "the facilitator's fee payer is required"
      }
      if (!isAddress(payTo)) {
        issues.payTo = 'must be a Solana address'
      }
      const memo = parameters.extra?.memo
      if (memo !== undefined && (typeof memo !== 'string' || Buffer.byteLength(memo) > MAX_MEMO_BYTES)) {
        issues['extra.memo'] = `must be a string of at most ${MAX_MEMO_BYTES} UTF-8 bytes`
      }
      if (Object.keys(issues).length > 0) {
        throw new AppError('invalid_request', { context: { issues }, message: 'invalid solana requirements' })
      }
      return {
        scheme: 'exact',
        network: asset.network,
        amount: amount.toString(),
        asset: asset.address,
        payTo,
        maxTimeoutSeconds: parameters.maxTimeoutSeconds ?? 300,
        extra: { ...parameters.extra, feePayer },
      }
    },
  }
}
