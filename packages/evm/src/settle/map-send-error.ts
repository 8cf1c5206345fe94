import { REASONS } from '@tollgate/core'

// FiatToken revert strings (the devnet's UsdcLike reverts with the same ones) and generic ERC-20
// errors, as a node reports them when a settlement transaction is refused.
const EIP3009_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/authorization is expired/i, REASONS.evmValidBefore],
  [/authorization is not yet valid/i, REASONS.evmValidAfter],
  [/authorization is used|used or canceled/i, REASONS.evmNonceAlreadyUsed],
  [/exceeds balance|ERC20InsufficientBalance/i, REASONS.evmInsufficientBalance],
  [/invalid signature/i, REASONS.evmSignature],
]

// Custom errors of the x402 exact Permit2 proxy and of Permit2 (docs/x402.md, 'Exact on EVM through Permit2').
const PERMIT2_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/InvalidAmount/, REASONS.permit2InvalidAmount],
  [/InvalidDestination/, REASONS.permit2InvalidDestination],
  [/InvalidOwner/, REASONS.permit2InvalidOwner],
  [/PaymentTooEarly/, REASONS.permit2PaymentTooEarly],
  [/Permit2612AmountMismatch/, 'permit2_2612_amount_mismatch'],
  [/InvalidNonce/, REASONS.permit2InvalidNonce],
  [/SignatureExpired/, REASONS.permit2DeadlineExpired],
  [/InvalidSigner|InvalidSignature|InvalidContractSignature/, REASONS.permit2Signature],
  [/InvalidPermit2Address/, REASONS.permit2ProxyNotDeployed],
  [/TRANSFER_FROM_FAILED|exceeds balance|ERC20InsufficientBalance/i, REASONS.permit2InsufficientBalance],
]

/** The x402 reason for an error message from sending (or simulating) a settlement transaction. */
export function mapSettlementError(scheme: 'eip3009' | 'permit2', message: string): string {
  const patterns = scheme === 'eip3009' ? EIP3009_PATTERNS : PERMIT2_PATTERNS
  for (const [pattern, reason] of patterns) {
    if (pattern.test(message)) {
      return reason
    }
  }
  return REASONS.evmTransactionFailed
}
