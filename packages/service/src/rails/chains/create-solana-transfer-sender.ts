import type { Address, Blockhash, KeyPairSigner } from '@solana/kit'
import { buildTransferTransaction } from '@tollgate/svm'
import { BaseError, RpcRequestError } from 'viem'
import type { SolanaSendAttempt } from '../../db/schema/rails-chain.js'
import type { ChainAsset } from '../types.js'
import type { JsonRpc } from './json-rpc.js'

/** One Solana transfer to sign: asset, recipient wallet, atomic amount, and the owner when it is not the treasury (a sweep). */
export type SolanaTransfer = { asset: ChainAsset; to: string; amount: bigint; owner?: KeyPairSigner }

/** What the node said to a broadcast: accepted (or maybe), refused for good, or refused because the blockhash is unknown. */
export type SolanaBroadcastResult = { status: 'sent' } | { status: 'refused' | 'expired'; reason: string }

/** A signature's state: landed (with its error, null when it succeeded), seen in a block but not confirmed, or unknown. */
export type SolanaSignatureState = { landed: true; err: unknown } | { landed: false; processed: boolean }

/** Signs, broadcasts and checks treasury transfers on one Solana network (the treasury pays every fee). */
export type SolanaTransferSender = {
  treasury: string
  sign(transfer: SolanaTransfer): Promise<SolanaSendAttempt>
  broadcast(wire: string): Promise<SolanaBroadcastResult>
  states(signatures: string[]): Promise<SolanaSignatureState[]>
  /** The finalized block height: an attempt whose `lastValidBlockHeight` is below it can never land. */
  finalizedBlockHeight(): Promise<bigint>
}

const asBigInt = (value: unknown) => BigInt(value as number | bigint | string)

/**
 * Creates the sender of one Solana network (docs/rails.md "Outbound crypto"). SPL tokens move by
 * [CreateAssociatedTokenIdempotent, TransferChecked], so a recipient without a token account gets
 * one, its rent paid by the treasury; SOL moves by a system transfer. The treasury is the fee payer
 * of every transaction, sweeps included (the deposit key co-signs as the owner of the funds).
 */
export function createSolanaTransferSender(options: {
  rpc: JsonRpc
  treasury: () => Promise<KeyPairSigner>
  treasuryAddress: string
}): SolanaTransferSender {
  const { rpc } = options
  return {
    treasury: options.treasuryAddress,
    sign: async (transfer) => {
      const treasury = await options.treasury()
      const { value } = (await rpc.request('getLatestBlockhash', [{ commitment: 'confirmed' }])) as {
        value: { blockhash: string; lastValidBlockHeight: number | bigint }
      }
      const token =
        transfer.asset.kind === 'native'
          ? undefined
          : {
              mint: transfer.asset.address as Address,
              decimals: transfer.asset.decimals,
              tokenProgram: (transfer.asset.tokenProgram ??
                'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') as Address,
            }
      const built = await buildTransferTransaction({
        feePayer: treasury,
        owner: transfer.owner ?? treasury,
        to: transfer.to as Address,
        amount: transfer.amount,
        ...(token ? { token } : {}),
        lifetime: {
          blockhash: value.blockhash as Blockhash,
          lastValidBlockHeight: asBigInt(value.lastValidBlockHeight),
        },
      })
      return {
        signature: built.signature,
        lastValidBlockHeight: `${built.lastValidBlockHeight}`,
        wire: built.wire,
      }
    },
    broadcast: async (wire) => {
      try {
        await rpc.request('sendTransaction', [wire, { encoding: 'base64', preflightCommitment: 'confirmed' }])
        return { status: 'sent' }
      } catch (error) {
        const cause = (error as { cause?: unknown }).cause
        const answer = cause instanceof BaseError ? cause.walk((e) => e instanceof RpcRequestError) : null
        // Only an answer of the node is a refusal; a transport error may have reached it (maybe sent).
        if (!(answer instanceof RpcRequestError)) {
          return { status: 'sent' }
        }
        const text = `${answer.shortMessage} ${answer.details}`
        if (/AlreadyProcessed|already been processed/i.test(text)) {
          return { status: 'sent' }
        }
        const reason = answer.details.slice(0, 500)
        return /BlockhashNotFound|blockhash not found/i.test(text)
          ? { status: 'expired', reason }
          : { status: 'refused', reason }
      }
    },
    states: async (signatures) => {
      const { value } = (await rpc.request('getSignatureStatuses', [
        signatures,
        { searchTransactionHistory: true },
      ])) as { value: ({ confirmationStatus: string | null; err: unknown } | null)[] }
      return signatures.map((_, i) => {
        const status = value[i]
        if (
          status &&
          (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')
        ) {
          return { landed: true, err: status.err ?? null }
        }
        return { landed: false, processed: status != null }
      })
    },
    finalizedBlockHeight: async () =>
      asBigInt(await rpc.request('getBlockHeight', [{ commitment: 'finalized' }])),
  }
}
