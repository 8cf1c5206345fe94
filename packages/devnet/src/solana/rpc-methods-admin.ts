import {
  type Address,
  appendTransactionMessageInstruction,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import type { FundParameters } from '../types.js'
import { decodeWireTransaction } from './decode-wire-transaction.js'
import { deriveSolanaKeypair } from './derive-solana-keypair.js'
import { createInvalidParamsError, RpcError, RpcErrorCode } from './rpc-error.js'
import { readAddress, readInteger } from './rpc-params.js'
import type { RpcHandler } from './rpc-server.js'
import type { SolanaChain } from './solana-chain.js'
import { setLamports } from './solana-fixtures.js'

/** Lamports the faucet starts with (10 million SOL); requestAirdrop draws from it. */
const FAUCET_LAMPORTS = 10_000_000n * 1_000_000_000n

/**
 * Creates requestAirdrop: like the public faucet, it lands a real system transfer from a faucet key
 * (so the signature has a status and a transaction), returning its base58 signature.
 */
export function createAirdropMethod(chain: SolanaChain): RpcHandler {
  const faucet = deriveSolanaKeypair('solana:faucet')
  setLamports(chain, faucet.address, FAUCET_LAMPORTS)
  return async (params) => {
    const destination = readAddress(params[0])
    const amount = readInteger(params, 1)
    const signer = await createKeyPairSignerFromBytes(faucet.secretKey)
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(signer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(chain.getLatestBlockhash(), m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({ source: signer, destination, amount }),
          m,
        ),
    )
    const signed = await signTransactionMessageWithSigners(message)
    const decoded = decodeWireTransaction(new Uint8Array(getTransactionEncoder().encode(signed)))
    const outcome = chain.execute(decoded)
    if (!outcome.landed || outcome.err !== null) {
      throw new RpcError(RpcErrorCode.internalError, `airdrop failed: ${JSON.stringify(outcome.err)}`)
    }
    return decoded.signature
  }
}

/**
 * Devnet-only admin methods, namespaced `tollgate_` so they never collide with the standard RPC:
 * `tollgate_advanceBlocks [count]` produces empty blocks (ages blockhashes), returning `{ slot, blockHeight }`;
 * `tollgate_fund [{ address, asset?, amount }]` does what {@link Devnet.fund} does (amount as a decimal string).
 */
export function createAdminMethods(
  chain: SolanaChain,
  fund: (parameters: Omit<FundParameters, 'network'>) => Promise<void>,
): Record<string, RpcHandler> {
  return {
    tollgate_advanceBlocks: (params) => {
      const count = params[0] === undefined ? 1n : readInteger(params, 0)
      chain.advanceBlocks(Number(count))
      return { slot: chain.slot, blockHeight: chain.blockHeight }
    },
    tollgate_fund: async (params) => {
      const input = (params[0] ?? {}) as { address?: unknown; asset?: unknown; amount?: unknown }
      const address: Address = readAddress(input.address)
      if (typeof input.amount !== 'string' || !/^\d+$/.test(input.amount)) {
        throw createInvalidParamsError('Invalid params: amount must be a decimal string of atomic units')
      }
      const asset = typeof input.asset === 'string' ? { asset: input.asset } : {}
      await fund({ address, amount: BigInt(input.amount), ...asset })
      return null
    },
  }
}
