import { getBase58Decoder, getBase64Decoder, type ReadonlyUint8Array } from '@solana/kit'
import { createInvalidParamsError } from './rpc-error.js'
import type { RpcConfig } from './rpc-params.js'
import type { AccountState, SolanaChain } from './solana-chain.js'
import {
  decodeMint,
  decodeTokenAccount,
  isTokenProgram,
  TOKEN_2022_PROGRAM,
  TOKEN_ACCOUNT_SIZE,
  toUiTokenAmount,
} from './token-layout.js'

export type { AccountState } from './solana-chain.js'

// Accounts are rent-exempt forever on current clusters; the RPC reports rentEpoch as u64::MAX.
const RENT_EPOCH = 18446744073709551615n

/** Reads an account from the chain, or null when it does not exist (or `address` is not an address). */
export function readAccount(chain: SolanaChain, address: string): AccountState | null {
  const key = chain.decodeAddress(address)
  return key ? chain.readAccountAt(key) : null
}

function token2022Extensions(data: ReadonlyUint8Array): { extension: string }[] {
  const extensions: { extension: string }[] = []
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  for (let offset = TOKEN_ACCOUNT_SIZE + 1; offset + 4 <= data.length; ) {
    const type = view.getUint16(offset, true)
    const length = view.getUint16(offset + 2, true)
    if (type === 0) {
      break
    }
    extensions.push({ extension: type === 7 ? 'immutableOwner' : 'unparseableExtension' })
    offset += 4 + length
  }
  return extensions
}

/** The `jsonParsed` form of a token account or mint, or null when the account is neither. */
export function parseTokenAccountData(chain: SolanaChain, account: AccountState): unknown {
  if (!isTokenProgram(account.owner)) {
    return null
  }
  const data = new Uint8Array(account.data)
  const program = account.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token'
  const extensions =
    account.owner === TOKEN_2022_PROGRAM && data.length > TOKEN_ACCOUNT_SIZE
      ? { extensions: token2022Extensions(data) }
      : {}
  const mint = decodeMint(data)
  if (mint) {
    const info = {
      decimals: mint.decimals,
      freezeAuthority: mint.freezeAuthority,
      isInitialized: true,
      mintAuthority: mint.mintAuthority,
      supply: mint.supply.toString(),
      ...extensions,
    }
    return { program, parsed: { info, type: 'mint' }, space: BigInt(data.length) }
  }
  const token = decodeTokenAccount(data)
  const mintAccount = token ? readAccount(chain, token.mint) : null
  const decimals = mintAccount ? decodeMint(new Uint8Array(mintAccount.data))?.decimals : undefined
  if (!token || decimals === undefined) {
    return null
  }
  const info = {
    isNative: token.isNative !== null,
    mint: token.mint,
    owner: token.owner,
    state: token.state === 2 ? 'frozen' : 'initialized',
    tokenAmount: toUiTokenAmount(token.amount, decimals),
    ...extensions,
  }
  return { program, parsed: { info, type: 'account' }, space: BigInt(data.length) }
}

function encodeData(chain: SolanaChain, account: AccountState, config: RpcConfig): unknown {
  const encoding = config.encoding ?? 'binary'
  if (encoding === 'jsonParsed') {
    const parsed = parseTokenAccountData(chain, account)
    if (parsed) {
      return parsed
    }
  }
  let data = account.data
  const slice = config.dataSlice as { offset?: number; length?: number } | undefined
  if (slice && encoding !== 'jsonParsed') {
    const offset = slice.offset ?? 0
    data = data.slice(offset, offset + (slice.length ?? 0))
  }
  switch (encoding) {
    case 'binary':
      return getBase58Decoder().decode(data)
    case 'base58':
      return [getBase58Decoder().decode(data), 'base58']
    case 'base64':
    case 'jsonParsed':
      // jsonParsed falls back to base64 for accounts it cannot parse, as the real RPC does.
      return [getBase64Decoder().decode(data), 'base64']
    default:
      throw createInvalidParamsError(
        `Invalid params: unsupported encoding: ${String(encoding)}. Supported encodings: binary, base58, base64, jsonParsed`,
      )
  }
}

/** The RPC's account object `{ data, executable, lamports, owner, rentEpoch, space }` in the requested encoding. */
export function formatAccount(chain: SolanaChain, account: AccountState | null, config: RpcConfig): unknown {
  if (!account) {
    return null
  }
  return {
    data: encodeData(chain, account, config),
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EPOCH,
    space: BigInt(account.data.length),
  }
}
