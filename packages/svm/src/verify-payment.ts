import type { Address, Base64EncodedWireTransaction, Rpc, SimulateTransactionApi } from '@solana/kit'
import {
  AppError,
  type AssetRegistry,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type VerifyResponse,
} from '@tollgate/core'
import {
  checkPaymentInstructions,
  type PaymentRefusal,
  type PaymentTransfer,
  type SolanaLimits,
} from './check-payment-instructions.js'
import { compareAccepted } from './compare-accepted.js'
import { type DecodedPaymentTransaction, decodePaymentTransaction } from './decode-payment-transaction.js'
import type { FeePayerPool } from './fee-payer-pool.js'
import { getAssociatedTokenAddress } from './get-associated-token-address.js'
import { type RawKey, toAddress, toRawKey } from './raw-keys.js'
import { describeRpcError, describeTransactionError, isJsonRpcRefusal } from './rpc-errors.js'
import { verifyTransactionSignatures } from './verify-transaction-signatures.js'

/** What verification needs to know about the facilitator. */
export type VerifyContext = {
  rpc: Rpc<SimulateTransactionApi> | undefined
  pool: FeePayerPool | undefined
  assets: AssetRegistry
  limits: SolanaLimits
  /** Every fee-payer key on every network: none may be a transfer authority. */
  facilitatorKeys: ReadonlySet<RawKey>
  /** The facilitator's verifies in flight, shared by all its networks (see {@link VerifyLoad}). */
  load: VerifyLoad
}

/**
 * How many of one facilitator's verifies are between their layout checks and their answer: with
 * more than one, signature checks go to the thread pool (see verifyTransactionSignatures).
 */
export type VerifyLoad = { active: number }

/** A payment that passed every check: what settle needs next. */
export type VerifiedPayment = {
  decoded: DecodedPaymentTransaction
  transfer: PaymentTransfer
  feePayer: Address
}

/** The verify answer, plus the decoded payment when it is valid. */
export type VerifyOutcome = { response: VerifyResponse; verified?: VerifiedPayment }

const invalid = (refusal: PaymentRefusal, payer?: string): VerifyOutcome => ({
  response: {
    isValid: false,
    invalidReason: refusal.reason,
    invalidMessage: refusal.message,
    ...(payer ? { payer } : {}),
  },
})

/**
 * Verifies an x402 exact-SVM payment: the requirements, the fee payer, the transaction's layout and
 * transfer, every payer signature (locally), then one `simulateTransaction` unless `simulate` is
 * false. Refusals are data; an unreachable RPC throws `rpc_failed`.
 */
export async function verifyPayment(
  context: VerifyContext,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  options: { simulate: boolean },
): Promise<VerifyOutcome> {
  const terms = checkTerms(context, payment, requirements)
  if ('reason' in terms) {
    return invalid(terms)
  }
  const { feePayer } = terms
  const transaction = payment.payload.transaction
  if (typeof transaction !== 'string') {
    return invalid({ reason: REASONS.svmTransaction, message: 'payload.transaction must be a base64 string' })
  }
  const decoded = decodePaymentTransaction(transaction)
  if (!decoded) {
    return invalid({
      reason: REASONS.svmCouldNotDecode,
      message: 'payload.transaction is not a valid transaction',
    })
  }
  const checked = await checkTransaction(context, decoded, requirements, feePayer)
  if ('reason' in checked) {
    return invalid(checked, checked.payer)
  }
  const payer = toAddress(checked.authority)
  let refusal: PaymentRefusal | undefined
  context.load.active++
  try {
    refusal = await checkSignaturesAndSimulate(context, decoded, requirements, transaction, options)
  } finally {
    context.load.active--
  }
  if (refusal) {
    return invalid(refusal, payer)
  }
  return { response: { isValid: true, payer }, verified: { decoded, transfer: checked, feePayer } }
}

/**
 * The payer signatures, then the simulation's verdict. The simulation goes out first, so that the
 * node works while we check Ed25519 signatures; the signature verdict still comes first: a bad
 * signature is refused as such, whatever the simulation says or throws.
 */
async function checkSignaturesAndSimulate(
  context: VerifyContext,
  decoded: DecodedPaymentTransaction,
  requirements: PaymentRequirements,
  transaction: string,
  options: { simulate: boolean },
): Promise<PaymentRefusal | undefined> {
  const simulation =
    options.simulate && context.rpc
      ? settle(simulatePayment(context.rpc, transaction, requirements.network))
      : undefined
  if (simulation) {
    // One event-loop turn, so that a transport which sends on setImmediate (createSolanaRpcClient
    // batches a turn's calls) writes the request before the signature check takes the CPU.
    await new Promise((resolve) => setImmediate(resolve))
  }
  // Alone, verify on the event loop (no thread hand-off); with other verifies waiting for the
  // loop, on the thread pool (see verifyTransactionSignatures).
  if (!(await verifyTransactionSignatures(decoded, { offload: context.load.active > 1 }))) {
    return { reason: REASONS.svmSignatureInvalid, message: 'a payer signature is missing or invalid' }
  }
  if (simulation) {
    const outcome = await simulation
    if (!outcome.ok) {
      throw outcome.error
    }
    return outcome.value
  }
  return undefined
}

/** A promise's outcome as data, so that it can be awaited later without an unhandled rejection. */
function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )
}

function checkTerms(
  context: VerifyContext,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
): PaymentRefusal | { feePayer: Address } {
  const { accepted } = payment
  if (requirements.scheme !== 'exact' || accepted.scheme !== 'exact') {
    return { reason: REASONS.svmUnsupportedScheme, message: 'the scheme must be exact' }
  }
  if (!context.pool) {
    return { reason: REASONS.invalidNetwork, message: `${requirements.network} is not served here` }
  }
  const mismatch = compareAccepted(accepted, requirements)
  if (mismatch) {
    return mismatch
  }
  if (BigInt(requirements.amount) === 0n) {
    return { reason: REASONS.invalidPaymentRequirements, message: 'amount must be greater than zero' }
  }
  const asset = context.assets.find(requirements.network, requirements.asset)
  if (!asset || asset.address !== requirements.asset || !asset.transferMethods.includes('solana')) {
    return {
      reason: REASONS.invalidPaymentRequirements,
      message: `asset ${requirements.asset} is not accepted on ${requirements.network}`,
    }
  }
  const feePayer = requirements.extra?.feePayer
  if (typeof feePayer !== 'string' || feePayer.length === 0) {
    return { reason: REASONS.svmMissingFeePayer, message: 'extra.feePayer is missing' }
  }
  if (!context.pool.get(feePayer)) {
    return {
      reason: REASONS.svmFeePayerNotManaged,
      message: `${feePayer} is not a fee payer of this facilitator`,
    }
  }
  return { feePayer: feePayer as Address }
}

async function checkTransaction(
  context: VerifyContext,
  { message }: DecodedPaymentTransaction,
  requirements: PaymentRequirements,
  feePayer: Address,
): Promise<PaymentTransfer | (PaymentRefusal & { payer?: string })> {
  if (message.accountKeys[0] !== toRawKey(feePayer)) {
    return { reason: REASONS.svmFeePayerMismatch, message: 'the transaction fee payer is not extra.feePayer' }
  }
  if (message.numSigners > context.limits.maxSigners) {
    return {
      reason: REASONS.svmExcessiveSigners,
      message: `${message.numSigners} signers, at most ${context.limits.maxSigners} allowed`,
    }
  }
  if (message.lookupTableCount > 0) {
    return { reason: REASONS.svmTransaction, message: 'address lookup tables are not accepted' }
  }
  const memo = requirements.extra?.memo
  const transfer = checkPaymentInstructions(message, {
    limits: context.limits,
    facilitatorKeys: context.facilitatorKeys,
    memo: typeof memo === 'string' ? memo : undefined,
  })
  if ('reason' in transfer) {
    return transfer
  }
  const payer = toAddress(transfer.authority)
  const asset = context.assets.find(requirements.network, requirements.asset)
  if (transfer.mint !== toRawKey(requirements.asset)) {
    return { reason: REASONS.svmMintMismatch, message: 'the transfer mint is not the asset', payer }
  }
  const tokenProgram = toAddress(transfer.tokenProgram)
  if (asset?.tokenProgram !== undefined && asset.tokenProgram !== tokenProgram) {
    return { reason: REASONS.svmMintMismatch, message: `the asset belongs to ${asset.tokenProgram}`, payer }
  }
  const destination = toRawKey(requirements.payTo)
    ? await getAssociatedTokenAddress(
        requirements.payTo as Address,
        requirements.asset as Address,
        tokenProgram,
      )
    : undefined
  if (transfer.destination !== (destination && toRawKey(destination))) {
    return {
      reason: REASONS.svmRecipientMismatch,
      message: 'the destination is not the payTo token account',
      payer,
    }
  }
  if (transfer.amount !== BigInt(requirements.amount)) {
    return {
      reason: REASONS.svmAmountMismatch,
      message: `amount ${transfer.amount}, required ${requirements.amount}`,
      payer,
    }
  }
  return transfer
}

async function simulatePayment(
  rpc: Rpc<SimulateTransactionApi>,
  transaction: string,
  network: string,
): Promise<PaymentRefusal | undefined> {
  let err: unknown
  try {
    const { value } = await rpc
      .simulateTransaction(transaction as Base64EncodedWireTransaction, {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: false,
        commitment: 'confirmed',
      })
      .send()
    err = value.err
  } catch (error) {
    if (!isJsonRpcRefusal(error)) {
      throw new AppError('rpc_failed', {
        context: { network, method: 'simulateTransaction' },
        cause: error,
        message: `simulateTransaction failed on ${network}`,
      })
    }
    return { reason: REASONS.svmSimulationFailed, message: describeRpcError(error) }
  }
  if (err === null || err === undefined) {
    return undefined
  }
  const message =
    err === 'BlockhashNotFound'
      ? 'blockhash not found: the transaction expired, sign a new payment'
      : `simulation failed: ${describeTransactionError(err)}`
  return { reason: REASONS.svmSimulationFailed, message }
}
