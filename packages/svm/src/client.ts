import { randomBytes } from 'node:crypto'
import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  type GetAccountInfoApi,
  type GetLatestBlockhashApi,
  getBase64EncodedWireTransaction,
  isAddress,
  type KeyPairSigner,
  partiallySignTransactionMessageWithSigners,
  pipe,
  type Rpc,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget'
import { getAddMemoInstruction } from '@solana-program/memo'
import { getTransferCheckedInstruction } from '@solana-program/token'
import { AppError, type PaymentRequirements, type SchemeClient, type SchemePayload } from '@tollgate/core'
import { CLIENT_COMPUTE_UNIT_LIMIT, CLIENT_COMPUTE_UNIT_PRICE, MEMO_PROGRAM } from './constants.js'
import { getAssociatedTokenAddress } from './get-associated-token-address.js'
import { getMintInfo } from './get-mint-info.js'

/** The RPC methods the client calls (standard Solana JSON-RPC). */
export type SolanaClientRpc = Rpc<GetLatestBlockhashApi & GetAccountInfoApi>

/** Options of {@link createSolanaClient}: the payer's key and an RPC per CAIP-2 network it pays on. */
export type SolanaClientOptions = {
  signer: KeyPairSigner
  rpcs: Record<string, SolanaClientRpc>
}

/**
 * Creates the payer side of the `solana` scheme. `createPayload` builds what the reference client
 * builds: a v0 transaction paid by `extra.feePayer` with [SetComputeUnitLimit 20,000,
 * SetComputeUnitPrice 1 microlamport, TransferChecked of `amount` from the payer's token account to
 * `payTo`'s (token program and decimals read from the mint account), Memo with `extra.memo` or a
 * random 16-byte hex nonce], signed by the payer only; the payload is `{ transaction: base64 }`.
 */
export function createSolanaClient(options: SolanaClientOptions): SchemeClient {
  const { signer, rpcs } = options
  const canPay = (requirements: PaymentRequirements) =>
    requirements.scheme === 'exact' &&
    rpcs[requirements.network] !== undefined &&
    typeof requirements.extra?.feePayer === 'string' &&
    isAddress(requirements.extra.feePayer) &&
    isAddress(requirements.asset) &&
    isAddress(requirements.payTo)

  const createPayload = async (requirements: PaymentRequirements): Promise<SchemePayload> => {
    const rpc = rpcs[requirements.network]
    if (!rpc || !canPay(requirements)) {
      throw new AppError('unsupported_scheme', {
        context: { scheme: requirements.scheme, network: requirements.network },
        message: `cannot pay ${requirements.scheme} on ${requirements.network} with this Solana client`,
      })
    }
    const mint = requirements.asset as Address
    const payTo = requirements.payTo as Address
    const feePayer = requirements.extra?.feePayer as Address
    const [{ tokenProgram, decimals }, lifetime] = await Promise.all([
      getMintInfo(rpc, requirements.network, mint),
      getLifetime(rpc, requirements),
    ])
    const [source, destination] = await Promise.all([
      getAssociatedTokenAddress(signer.address, mint, tokenProgram),
      getAssociatedTokenAddress(payTo, mint, tokenProgram),
    ])
    const memo = requirements.extra?.memo
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getSetComputeUnitLimitInstruction({ units: CLIENT_COMPUTE_UNIT_LIMIT }),
            getSetComputeUnitPriceInstruction({ microLamports: CLIENT_COMPUTE_UNIT_PRICE }),
            getTransferCheckedInstruction(
              { source, mint, destination, authority: signer, amount: BigInt(requirements.amount), decimals },
              { programAddress: tokenProgram },
            ),
            // A random nonce makes two otherwise identical payments two distinct transactions.
            getAddMemoInstruction(
              { memo: typeof memo === 'string' ? memo : randomBytes(16).toString('hex') },
              { programAddress: MEMO_PROGRAM },
            ),
          ],
          m,
        ),
    )
    const transaction = await partiallySignTransactionMessageWithSigners(message)
    return { transaction: getBase64EncodedWireTransaction(transaction) }
  }

  return {
    name: 'solana',
    canPay,
    getAddress: (network) => (rpcs[network] ? signer.address : undefined),
    createPayload,
  }
}

// The requirements' blockhash hint when there is one, else the latest confirmed blockhash.
async function getLifetime(
  rpc: Rpc<GetLatestBlockhashApi>,
  requirements: PaymentRequirements,
): Promise<{ blockhash: Blockhash; lastValidBlockHeight: bigint }> {
  const hint = requirements.extra?.recentBlockhash
  if (typeof hint === 'string' && hint.length > 0) {
    const height = requirements.extra?.lastValidBlockHeight
    const lastValidBlockHeight =
      typeof height === 'number' || typeof height === 'string' ? BigInt(height) : 0n
    return { blockhash: hint as Blockhash, lastValidBlockHeight }
  }
  const { value } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()
  return value
}
