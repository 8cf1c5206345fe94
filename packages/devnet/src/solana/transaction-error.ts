import type { FailedTransactionMetadata } from 'litesvm'

/** A TransactionError as the Solana RPC serialises it: `"BlockhashNotFound"` or `{ "InstructionError": [2, { "Custom": 1 }] }`. */
export type TransactionErrorJson = string | { [variant: string]: unknown }

// Variant names in the order of agave's `TransactionError` / `InstructionError` enums, which is the
// numbering LiteSVM's fieldless enums use.
const transactionErrorNames = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
]

const instructionErrorNames = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
]

type LiteSvmTransactionError = ReturnType<FailedTransactionMetadata['err']>
type LiteSvmInstructionError = number | { code: number } | { msg: string }

function toInstructionErrorJson(err: LiteSvmInstructionError): TransactionErrorJson {
  if (typeof err === 'number') {
    return instructionErrorNames[err] ?? 'GenericError'
  }
  return 'code' in err ? { Custom: err.code } : { BorshIoError: err.msg }
}

/** Converts a LiteSVM transaction error into the JSON the Solana RPC returns in `err` fields. */
export function toTransactionErrorJson(err: LiteSvmTransactionError): TransactionErrorJson {
  if (typeof err === 'number') {
    return transactionErrorNames[err] ?? 'SanitizeFailure'
  }
  if ('err' in err && typeof err.err === 'function') {
    return { InstructionError: [err.index, toInstructionErrorJson(err.err() as LiteSvmInstructionError)] }
  }
  if ('index' in err) {
    return { DuplicateInstruction: err.index }
  }
  // Both remaining variants carry an account index; only their Display text tells them apart.
  const variant = String(err).includes('Restricted')
    ? 'ProgramExecutionTemporarilyRestricted'
    : 'InsufficientFundsForRent'
  return { [variant]: { account_index: err.accountIndex } }
}

const transactionErrorMessages: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  InvalidProgramForExecution: 'Attempt to load a program that does not exist',
}

function describeInstructionError(err: unknown): string {
  if (typeof err === 'string') {
    return err.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
  }
  const record = err as Record<string, unknown>
  if (typeof record.Custom === 'number') {
    return `custom program error: 0x${record.Custom.toString(16)}`
  }
  return JSON.stringify(err)
}

/** Renders a TransactionError the way agave's Display does (the text after "Transaction simulation failed: "). */
export function describeTransactionError(err: TransactionErrorJson): string {
  if (typeof err === 'string') {
    return transactionErrorMessages[err] ?? err
  }
  const instructionError = err.InstructionError
  if (Array.isArray(instructionError)) {
    return `Error processing Instruction ${instructionError[0]}: ${describeInstructionError(instructionError[1])}`
  }
  return JSON.stringify(err)
}
