import {
  type Address,
  appendTransactionMessageInstructions,
  type Base64EncodedWireTransaction,
  type Blockhash,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  type Signature,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token'
import { getAssociatedTokenAddress } from './get-associated-token-address.js'

/** What {@link buildTransferTransaction} moves: an SPL token (with its mint facts) or, without `token`, SOL. */
export type TransferTransactionInput = {
  /** Pays the fee and, when the recipient has no token account yet, its rent. */
  feePayer: KeyPairSigner
  /** Owns the funds (the fee payer itself, or another key that co-signs: a deposit address). */
  owner: KeyPairSigner
  /** The recipient's wallet (for a token, its associated token account receives). */
  to: Address
  /** Atomic units (lamports for SOL). */
  amount: bigint
  token?: { mint: Address; decimals: number; tokenProgram: Address }
  lifetime: { blockhash: Blockhash; lastValidBlockHeight: bigint }
}

/** A signed transfer ready to send: wire bytes (base64), its id (the fee payer's signature) and lifetime. */
export type TransferTransaction = {
  wire: Base64EncodedWireTransaction
  signature: Signature
  lastValidBlockHeight: bigint
}

/**
 * Builds and fully signs a transfer from `owner` to `to`, paid by `feePayer`. A token transfer is
 * [CreateAssociatedTokenIdempotent (the recipient's account; a no-op when it exists), TransferChecked];
 * a SOL transfer is one system Transfer. The signature is the transaction id, known before anything
 * is sent, so a caller can record it first and later prove the transaction landed or can no longer
 * land (its blockhash expired at `lastValidBlockHeight`).
 */
export async function buildTransferTransaction(
  input: TransferTransactionInput,
): Promise<TransferTransaction> {
  const { feePayer, owner, to, amount, token, lifetime } = input
  let instructions: Instruction[]
  if (token) {
    const [source, destination] = await Promise.all([
      getAssociatedTokenAddress(owner.address, token.mint, token.tokenProgram),
      getAssociatedTokenAddress(to, token.mint, token.tokenProgram),
    ])
    instructions = [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: feePayer,
        ata: destination,
        owner: to,
        mint: token.mint,
        tokenProgram: token.tokenProgram,
      }),
      getTransferCheckedInstruction(
        { source, mint: token.mint, destination, authority: owner, amount, decimals: token.decimals },
        { programAddress: token.tokenProgram },
      ),
    ]
  } else {
    instructions = [getTransferSolInstruction({ source: owner, destination: to, amount })]
  }
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  const signed = await signTransactionMessageWithSigners(message)
  return {
    wire: getBase64EncodedWireTransaction(signed),
    signature: getSignatureFromTransaction(signed),
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
  }
}
