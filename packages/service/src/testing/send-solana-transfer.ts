import {
  AccountRole,
  type Address,
  appendTransactionMessageInstruction,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { type LocalDevnet, SOLANA_DEVNET_NETWORK } from '@tollgate/devnet'
import { createJsonRpc, type JsonRpc } from '../rails/chains/json-rpc.js'
import { getAssociatedTokenAccount } from '../rails/chains/solana-watcher.js'
import type { ChainAsset } from '../rails/types.js'

const u64 = (value: bigint) => {
  const bytes = new Uint8Array(8)
  new DataView(bytes.buffer).setBigUint64(0, value, true)
  return bytes
}

/** Signs `instruction` with the base58 64-byte `secret` as fee payer and sends it; returns the signature. */
export async function sendSolanaTransaction(
  rpc: JsonRpc,
  secret: string,
  instruction: (payer: Address) => Instruction,
): Promise<string> {
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(secret))
  const { value } = (await rpc.request('getLatestBlockhash', [])) as {
    value: { blockhash: string; lastValidBlockHeight: number }
  }
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(signer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: value.blockhash as never, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) },
        m,
      ),
    (m) => appendTransactionMessageInstruction(instruction(signer.address), m),
  )
  const signed = await signTransactionMessageWithSigners(message)
  return (await rpc.request('sendTransaction', [
    getBase64EncodedWireTransaction(signed),
    { encoding: 'base64' },
  ])) as string
}

/** Sends an SPL TransferChecked (instruction 12) of `amount` from the payer's to `owner`'s associated account. */
export async function sendSplTransfer(
  rpc: JsonRpc,
  input: { secret: string; payer: string; owner: string; asset: ChainAsset; amount: bigint },
): Promise<string> {
  const from = await getAssociatedTokenAccount(input.payer, input.asset)
  const to = await getAssociatedTokenAccount(input.owner, input.asset)
  return sendSolanaTransaction(rpc, input.secret, (authority) => ({
    programAddress: input.asset.tokenProgram as Address,
    accounts: [
      { address: from as Address, role: AccountRole.WRITABLE },
      { address: input.asset.address as Address, role: AccountRole.READONLY },
      { address: to as Address, role: AccountRole.WRITABLE },
      { address: authority, role: AccountRole.READONLY_SIGNER },
    ],
    data: new Uint8Array([12, ...u64(input.amount), input.asset.decimals]),
  }))
}

/** Sends a System transfer (instruction 2) of `lamports` from the payer to `to`. */
export function sendLamports(
  rpc: JsonRpc,
  input: { secret: string; to: string; lamports: bigint },
): Promise<string> {
  return sendSolanaTransaction(rpc, input.secret, (source) => ({
    programAddress: '11111111111111111111111111111111' as Address,
    accounts: [
      { address: source, role: AccountRole.WRITABLE_SIGNER },
      { address: input.to as Address, role: AccountRole.WRITABLE },
    ],
    data: new Uint8Array([2, 0, 0, 0, ...u64(input.lamports)]),
  }))
}

/**
 * Pays SPL `asset` from the devnet's first Solana payer: creates the owner's associated token
 * account (empty; a customer's wallet creates it in the same transaction) so a TransferChecked can
 * credit it, then sends `amount`; resolves with the signature once LiteSVM has the block.
 */
export function createSolanaDevnetPayer(
  devnet: LocalDevnet,
  asset: ChainAsset,
): (owner: string, amount: bigint) => Promise<string> {
  const network = devnet.networks[SOLANA_DEVNET_NETWORK]
  const wallet = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
  if (!network || !wallet) {
    throw new TypeError('no Solana payer on the devnet')
  }
  const rpc = createJsonRpc(network.rpcUrl, { network: SOLANA_DEVNET_NETWORK })
  return async (owner, amount) => {
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: owner, asset: asset.symbol, amount: 0n })
    return sendSplTransfer(rpc, { secret: wallet.privateKey, payer: wallet.address, owner, asset, amount })
  }
}
