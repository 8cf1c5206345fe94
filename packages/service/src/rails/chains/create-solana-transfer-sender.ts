import { setTimeout as sleep } from 'node:timers/promises'
import type { Address, Blockhash, KeyPairSigner } from '@solana/kit'
import { buildOpenTokenAccountTransaction, buildTransferTransaction } from '@tollgate/svm'
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
  /**
   * Makes sure `owner` has its associated token account of SPL `asset`, the treasury paying fee and
   * rent: `exists` when it already did (nothing sent), `opened` once the opening transaction is
   * confirmed. Throws when the node refuses it or it is not confirmed within `timeoutMs` (default
   * 20 s); a retry is safe, the instruction is idempotent on-chain.
   */
  openTokenAccount(
    owner: string,
    asset: ChainAsset,
    options?: { timeoutMs?: number },
  ): Promise<{ status: 'exists' | 'opened'; account: string; signature?: string }>
}

const asBigInt = (value: unknown) => BigInt(value as number | bigint | string)
const tokenProgramOf = (asset: ChainAsset) =>
  (asset.tokenProgram ?? 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') as Address

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
  const latestBlockhash = async () => {
    const { value } = (await rpc.request('getLatestBlockhash', [{ commitment: 'confirmed' }])) as {
      value: { blockhash: string; lastValidBlockHeight: number | bigint }
    }
    return {
      blockhash: value.blockhash as Blockhash,
      lastValidBlockHeight: asBigInt(value.lastValidBlockHeight),
    }
  }
  const sender: SolanaTransferSender = {
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
              tokenProgram: tokenProgramOf(transfer.asset),
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
    openTokenAccount: async (owner, asset, openOptions = {}) => {
      if (asset.kind === 'native' || !asset.address) {
        throw new Error(`${asset.symbol} is not an SPL token: it has no token account`)
      }
      const treasury = await options.treasury()
      const built = await buildOpenTokenAccountTransaction({
        feePayer: treasury,
        owner: owner as Address,
        token: { mint: asset.address as Address, tokenProgram: tokenProgramOf(asset) },
        lifetime: await latestBlockhash(),
      })
      const { value } = (await rpc.request('getAccountInfo', [
        built.account,
        { encoding: 'base64', commitment: 'confirmed', dataSlice: { offset: 0, length: 0 } },
      ])) as { value: unknown }
      if (value !== null) {
        return { status: 'exists', account: built.account }
      }
      const sent = await sender.broadcast(built.wire)
      if (sent.status !== 'sent') {
        throw new Error(`opening token account ${built.account} was refused: ${sent.reason}`)
      }
      const deadline = Date.now() + (openOptions.timeoutMs ?? 20_000)
      for (;;) {
        const [state] = await sender.states([built.signature])
        if (state?.landed) {
          if (state.err) {
            throw new Error(`opening token account ${built.account} failed: ${JSON.stringify(state.err)}`)
          }
          return { status: 'opened', account: built.account, signature: built.signature }
        }
        if (Date.now() > deadline) {
          throw new Error(`opening token account ${built.account} was not confirmed in time`)
        }
        await sleep(100)
      }
    },
  }
  return sender
}
