/**
 * x402 `invalidReason` / `errorReason` strings Tollgate emits. They are the reference
 * implementation's (@x402 2.27) strings so other x402 software understands us; see docs/x402.md, 'Reason strings'.
 * Reasons are an open set on the wire: match unknown ones by prefix and treat them as failures.
 */
export const REASONS = {
  // generic
  invalidPayload: 'invalid_payload',
  invalidPaymentRequirements: 'invalid_payment_requirements',
  invalidNetwork: 'invalid_network',
  invalidScheme: 'invalid_scheme',
  unsupportedScheme: 'unsupported_scheme',
  invalidX402Version: 'invalid_x402_version',
  invalidTransactionState: 'invalid_transaction_state',
  unexpectedVerifyError: 'unexpected_verify_error',
  unexpectedSettleError: 'unexpected_settle_error',
  insufficientFunds: 'insufficient_funds',
  settlementPending: 'settlement_pending',
  duplicateSettlement: 'duplicate_settlement',
  // Tollgate's own (no reference reason fits; docs/x402.md, 'Reason strings')
  amountBelowMinimum: 'tollgate_amount_below_minimum',
  rateLimited: 'tollgate_rate_limited',
  payerCoolingDown: 'tollgate_payer_cooling_down',
  // accepted-vs-requirements comparison (Tollgate is stricter than the reference, docs/x402.md)
  acceptedMismatch: 'invalid_payment_requirements',
  // exact EVM, EIP-3009
  evmAssetNotDeployed: 'asset_not_deployed_contract',
  evmScheme: 'invalid_exact_evm_scheme',
  evmNetworkMismatch: 'invalid_exact_evm_network_mismatch',
  evmMissingEip712Domain: 'invalid_exact_evm_missing_eip712_domain',
  evmRecipientMismatch: 'invalid_exact_evm_recipient_mismatch',
  evmSignature: 'invalid_exact_evm_signature',
  evmValidBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  evmValidAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  evmValueMismatch: 'invalid_exact_evm_payload_authorization_value_mismatch',
  evmTransactionFailed: 'invalid_exact_evm_transaction_failed',
  evmTransferEventMismatch: 'invalid_exact_evm_transfer_event_mismatch',
  evmTokenNameMismatch: 'invalid_exact_evm_token_name_mismatch',
  evmTokenVersionMismatch: 'invalid_exact_evm_token_version_mismatch',
  evmEip3009NotSupported: 'invalid_exact_evm_eip3009_not_supported',
  evmNonceAlreadyUsed: 'invalid_exact_evm_nonce_already_used',
  evmInsufficientBalance: 'invalid_exact_evm_insufficient_balance',
  evmSimulationFailed: 'invalid_exact_evm_transaction_simulation_failed',
  evmFailedToParseSignature: 'invalid_exact_evm_failed_to_parse_signature',
  evmUnsupportedPayloadType: 'unsupported_payload_type',
  evmEip6492FactoryNotAllowed: 'eip6492_factory_not_allowed',
  evmSmartWalletDeploymentFailed: 'smart_wallet_deployment_failed',
  // exact EVM, Permit2
  permit2Spender: 'invalid_permit2_spender',
  permit2RecipientMismatch: 'invalid_permit2_recipient_mismatch',
  permit2DeadlineExpired: 'permit2_deadline_expired',
  permit2NotYetValid: 'permit2_not_yet_valid',
  permit2AmountMismatch: 'permit2_amount_mismatch',
  permit2TokenMismatch: 'permit2_token_mismatch',
  permit2Signature: 'invalid_permit2_signature',
  permit2AllowanceRequired: 'permit2_allowance_required',
  permit2SimulationFailed: 'permit2_simulation_failed',
  permit2InsufficientBalance: 'permit2_insufficient_balance',
  permit2ProxyNotDeployed: 'permit2_proxy_not_deployed',
  permit2InvalidAmount: 'permit2_invalid_amount',
  permit2InvalidDestination: 'permit2_invalid_destination',
  permit2InvalidOwner: 'permit2_invalid_owner',
  permit2PaymentTooEarly: 'permit2_payment_too_early',
  permit2InvalidNonce: 'permit2_invalid_nonce',
  // exact SVM
  svmUnsupportedScheme: 'invalid_exact_svm_unsupported_scheme',
  svmNetworkMismatch: 'invalid_exact_svm_network_mismatch',
  svmMissingFeePayer: 'invalid_exact_svm_payload_missing_fee_payer',
  svmFeePayerNotManaged: 'invalid_exact_svm_fee_payer_not_managed_by_facilitator',
  svmTransaction: 'invalid_exact_svm_payload_transaction',
  svmCouldNotDecode: 'invalid_exact_svm_payload_transaction_could_not_be_decoded',
  svmSignatureInvalid: 'invalid_exact_svm_payload_signature_invalid',
  svmExcessiveSigners: 'invalid_exact_svm_payload_excessive_signers',
  svmInstructionsLength: 'invalid_exact_svm_payload_transaction_instructions_length',
  svmComputeLimitInstruction: 'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction',
  svmComputeLimitTooHigh:
    'invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high',
  svmComputePriceInstruction: 'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction',
  svmComputePriceTooHigh:
    'invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high',
  svmUnknownOptionalInstruction: 'invalid_exact_svm_payload_unknown_optional_instruction',
  svmNoTransferInstruction: 'invalid_exact_svm_payload_no_transfer_instruction',
  svmFeePayerTransferringFunds: 'invalid_exact_svm_payload_transaction_fee_payer_transferring_funds',
  svmFeePayerInInstructionAccounts:
    'invalid_exact_svm_payload_transaction_fee_payer_included_in_instruction_accounts',
  svmMintMismatch: 'invalid_exact_svm_payload_mint_mismatch',
  svmRecipientMismatch: 'invalid_exact_svm_payload_recipient_mismatch',
  svmAmountMismatch: 'invalid_exact_svm_payload_amount_mismatch',
  svmSimulationFailed: 'invalid_exact_svm_transaction_simulation_failed',
  svmMemoMismatch: 'invalid_exact_svm_payload_memo_mismatch',
  svmMemoCount: 'invalid_exact_svm_payload_memo_count',
  svmFeePayerMismatch: 'invalid_exact_svm_fee_payer_mismatch',
  svmTransactionFailed: 'invalid_exact_svm_transaction_failed',
  svmBlockHeightExceeded: 'settle_exact_svm_block_height_exceeded',
} as const

/** One of the reason strings in {@link REASONS}. */
export type Reason = (typeof REASONS)[keyof typeof REASONS]
