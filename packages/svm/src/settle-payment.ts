import {
  type Base64EncodedWireTransaction,
  type Blockhash,
  getBase58Decoder,
  isSolanaError,
  type KeyPairSigner,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  signBytes,
} from '@solana/kit'
import { createSettleFailure, REASONS, type SettleResponse } from '@tollgate/core'
import type { DecodedPaymentTransaction } from './decode-payment-transaction.js'
import { describeRpcError, describeTransactionError, isJsonRpcRefusal } from './rpc-errors.js'
import type { SignatureOutcome, SignaturePoller } from './signature-poller.js'

const base58 = getBase58Decoder()

/** A payment transaction co-signed by its fee payer: wire bytes (base64) and its id. */
export type CoSignedTransaction = { wire: Base64EncodedWireTransaction; signature: Signature }

/**
 * Adds the fee payer's signature to the payer-signed transaction. The first signature is the
 * transaction id, so it is known before anything is sent. The fee payer's slot is the first 64
 * bytes after the one-byte signature count (counts below 128 take one byte of compact-u16).
 */
export async function coSignTransaction(
  decoded: DecodedPaymentTransaction,
  feePayer: KeyPairSigner,
): Promise<CoSignedTransaction> {
  const signature = await signBytes(feePayer.keyPair.privateKey, decoded.messageBytes)
  const wire = Buffer.from(decoded.wire)
  wire.set(signature, 1)
  return {
    wire: wire.toString('base64') as Base64EncodedWireTransaction,
    signature: base58.decode(signature) as Signature,
  }
}

/** What sending ended in: sent (or possibly sent), or refused by the node before broadcast. */
type SendResult = { sent: true } | { sent: false; response: SettleResponse }

/**
 * Sends with preflight at `confirmed`: the node simulates first, so a transfer that would fail
 * on-chain (and still cost the fee payer its fee) is refused before broadcast, in the same round
 * trip. A refusal is final; a transport error means "maybe sent", so the caller waits on it.
 */
export async function sendCoSigned(
  rpc: Rpc<SendTransactionApi>,
  transaction: CoSignedTransaction,
  { payer, network }: { payer: string; network: string },
): Promise<SendResult> {
  try {
    await rpc
      .sendTransaction(transaction.wire, { encoding: 'base64', preflightCommitment: 'confirmed' })
      .send()
    return { sent: true }
  } catch (error) {
    if (!isJsonRpcRefusal(error)) {
      return { sent: true }
    }
    const cause = (error as Error).cause
    if (isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)) {
      return { sent: true }
    }
    const preflight = isSolanaError(
      error,
      SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
    )
    const expired = isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)
    return {
      sent: false,
      response: createSettleFailure(
        network,
        expired
          ? REASONS.svmBlockHeightExceeded
          : preflight
            ? REASONS.svmSimulationFailed
            : REASONS.svmTransactionFailed,
        {
          errorMessage: expired
            ? 'blockhash not found: the transaction expired before it was sent'
            : describeRpcError(cause ?? error),
          payer,
        },
      ),
    }
  }
}

/** Waits for a sent transaction and turns the outcome into a settle response. */
export async function awaitSettlement(
  poller: SignaturePoller,
  signature: Signature,
  options: { blockhash: Blockhash | undefined; timeoutMs: number; payer: string; network: string },
): Promise<SettleResponse> {
  const outcome: SignatureOutcome = await poller.wait(signature, options)
  const { network, payer } = options
  const failure = (reason: string, errorMessage: string) =>
    createSettleFailure(network, reason, { errorMessage, transaction: signature, payer })
  switch (outcome.status) {
    case 'confirmed':
      return { success: true, transaction: signature, network, payer }
    case 'failed':
      return failure(
        REASONS.svmTransactionFailed,
        `transaction failed: ${describeTransactionError(outcome.err)}`,
      )
    case 'expired':
      return failure(
        REASONS.svmBlockHeightExceeded,
        'the blockhash expired before the transaction landed; it never will',
      )
    case 'timeout':
      return failure(
        REASONS.settlementPending,
        'broadcast but not confirmed yet: settle again to re-await it',
      )
  }
}
