import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { getCreateAssociatedTokenIdempotentInstruction } from '@solana-program/token'
import type { TransferTransaction } from './build-transfer-transaction.js'
import { getAssociatedTokenAddress } from './get-associated-token-address.js'

/** What {@link buildOpenTokenAccountTransaction} opens: `owner`'s associated token account of `token`'s mint. */
export type OpenTokenAccountInput = {
  /** Pays the fee and the new account's rent. */
  feePayer: KeyPairSigner
  /** The wallet the account is for; it does not sign. */
  owner: Address
  token: { mint: Address; tokenProgram: Address }
  lifetime: { blockhash: Blockhash; lastValidBlockHeight: bigint }
}

/**
 * Builds and signs one CreateAssociatedTokenIdempotent instruction paid by `feePayer`: after it lands,
 * `owner` can receive the token from a transaction that only transfers (an x402 payment cannot
 * create the recipient's account). Idempotent on-chain: when the account exists it changes nothing
 * but the fee. Returns the account's address beside the signed transaction.
 */
export async function buildOpenTokenAccountTransaction(
  input: OpenTokenAccountInput,
): Promise<TransferTransaction & { account: Address }> {
  const { feePayer, owner, token, lifetime } = input
  const account = await getAssociatedTokenAddress(owner, token.mint, token.tokenProgram)
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: feePayer,
            ata: account,
            owner,
            mint: token.mint,
            tokenProgram: token.tokenProgram,
          }),
        ],
        m,
      ),
  )
  const signed = await signTransactionMessageWithSigners(message)
  return {
    account,
    wire: getBase64EncodedWireTransaction(signed),
    signature: getSignatureFromTransaction(signed),
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
  }
}
