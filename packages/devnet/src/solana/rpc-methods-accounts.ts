import { type Address, getBase58Encoder, getBase64Encoder } from '@solana/kit'
import { type AccountState, formatAccount, readAccount } from './format-account.js'
import { createInvalidParamsError } from './rpc-error.js'
import { type RpcConfig, readAddress, readConfig, readInteger, withContext } from './rpc-params.js'
import type { RpcHandler } from './rpc-server.js'
import type { SolanaChain } from './solana-chain.js'
import {
  decodeMint,
  decodeTokenAccount,
  isTokenProgram,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  toUiTokenAmount,
} from './token-layout.js'

type ProgramAccount = { pubkey: Address; account: AccountState }

function listProgramAccounts(chain: SolanaChain, program: Address): ProgramAccount[] {
  return chain.svm.getProgramAccounts(program).map((a) => ({
    pubkey: a.address,
    account: { lamports: a.lamports, data: a.data, owner: a.programAddress, executable: a.executable },
  }))
}

function matchesFilter(data: Uint8Array, filter: unknown): boolean {
  const f = (filter ?? {}) as {
    dataSize?: number
    memcmp?: { offset?: number; bytes?: string; encoding?: string }
  }
  if (typeof f.dataSize === 'number') {
    return data.length === f.dataSize
  }
  if (f.memcmp && typeof f.memcmp.bytes === 'string') {
    const bytes =
      f.memcmp.encoding === 'base64'
        ? getBase64Encoder().encode(f.memcmp.bytes)
        : getBase58Encoder().encode(f.memcmp.bytes)
    const offset = f.memcmp.offset ?? 0
    return bytes.every((byte, i) => data[offset + i] === byte)
  }
  throw createInvalidParamsError('Invalid params: unsupported filter')
}

function readTokenBalance(chain: SolanaChain, address: Address) {
  const account = readAccount(chain, address)
  if (!account) {
    throw createInvalidParamsError('Invalid param: could not find account')
  }
  const token = isTokenProgram(account.owner) ? decodeTokenAccount(new Uint8Array(account.data)) : null
  const mintAccount = token ? readAccount(chain, token.mint) : null
  const mint = mintAccount ? decodeMint(new Uint8Array(mintAccount.data)) : null
  if (!token || !mint) {
    throw createInvalidParamsError('Invalid param: not a Token account')
  }
  return toUiTokenAmount(token.amount, mint.decimals)
}

function getTokenAccountsByOwner(chain: SolanaChain, params: unknown[]) {
  const owner = readAddress(params[0])
  const filter = readConfig(params, 1) as { mint?: unknown; programId?: unknown }
  const config = readConfig(params, 2)
  let programs: Address[] = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]
  let mint: Address | undefined
  if (filter.programId !== undefined) {
    const program = readAddress(filter.programId)
    if (!isTokenProgram(program)) {
      throw createInvalidParamsError('Invalid param: unrecognized Token program id')
    }
    programs = [program]
  } else if (filter.mint !== undefined) {
    mint = readAddress(filter.mint)
    const mintAccount = readAccount(chain, mint)
    if (!mintAccount || !isTokenProgram(mintAccount.owner)) {
      throw createInvalidParamsError('Invalid param: could not find mint')
    }
    programs = [mintAccount.owner as Address]
  } else {
    throw createInvalidParamsError('Invalid params: expected `mint` or `programId` filter')
  }
  const matches = programs.flatMap((program) =>
    listProgramAccounts(chain, program).filter(({ account }) => {
      const token = decodeTokenAccount(new Uint8Array(account.data))
      return token !== null && token.owner === owner && (mint === undefined || token.mint === mint)
    }),
  )
  return withContext(
    chain,
    matches.map(({ pubkey, account }) => ({ pubkey, account: formatAccount(chain, account, config) })),
  )
}

function getProgramAccounts(chain: SolanaChain, params: unknown[]) {
  const program = readAddress(params[0])
  const config = readConfig(params, 1)
  const filters = Array.isArray(config.filters) ? config.filters : []
  const value = listProgramAccounts(chain, program)
    .filter(({ account }) => filters.every((f) => matchesFilter(new Uint8Array(account.data), f)))
    .map(({ pubkey, account }) => ({ pubkey, account: formatAccount(chain, account, config) }))
  return config.withContext === true ? withContext(chain, value) : value
}

/** Account reads: getAccountInfo, getMultipleAccounts, getBalance, token balances and lookups, rent. */
export function createAccountMethods(chain: SolanaChain): Record<string, RpcHandler> {
  // Decoded through the chain's address cache: a watcher reads the same accounts every poll.
  const account = (address: unknown, config: RpcConfig) => {
    const key = typeof address === 'string' ? chain.decodeAddress(address) : null
    if (!key) {
      throw createInvalidParamsError('Invalid param: Invalid')
    }
    return formatAccount(chain, chain.readAccountAt(key), config)
  }
  return {
    getAccountInfo: (params) => withContext(chain, account(params[0], readConfig(params, 1))),
    getMultipleAccounts: (params) => {
      const addresses = params[0]
      if (!Array.isArray(addresses) || addresses.length > 100) {
        throw createInvalidParamsError('Invalid params: expected an array of at most 100 addresses')
      }
      const config = readConfig(params, 1)
      return withContext(
        chain,
        addresses.map((a) => account(a, config)),
      )
    },
    getBalance: (params) => withContext(chain, chain.svm.getBalance(readAddress(params[0])) ?? 0n),
    getTokenAccountBalance: (params) => withContext(chain, readTokenBalance(chain, readAddress(params[0]))),
    getTokenSupply: (params) => {
      const mintAccount = readAccount(chain, readAddress(params[0]))
      const mint =
        mintAccount && isTokenProgram(mintAccount.owner) ? decodeMint(new Uint8Array(mintAccount.data)) : null
      if (!mint) {
        throw createInvalidParamsError('Invalid param: not a Token mint')
      }
      return withContext(chain, toUiTokenAmount(mint.supply, mint.decimals))
    },
    getTokenAccountsByOwner: (params) => getTokenAccountsByOwner(chain, params),
    getProgramAccounts: (params) => getProgramAccounts(chain, params),
    getMinimumBalanceForRentExemption: (params) =>
      chain.svm.minimumBalanceForRentExemption(readInteger(params, 0)),
  }
}
