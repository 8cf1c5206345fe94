import type { Address, GetAccountInfoApi, Rpc } from '@solana/kit'
import { AppError } from '@tollgate/core'
import { LRUCache } from 'lru-cache'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './constants.js'

/** A mint's owning token program and decimals. */
export type MintInfo = { tokenProgram: Address; decimals: number }

/** Byte offset of `decimals` in an SPL mint (same under Token-2022, whose extensions come after). */
const DECIMALS_OFFSET = 44
// Bounded (least recently used go first): the mint is whatever a request names.
const cache = new LRUCache<string, Promise<MintInfo>>({ max: 1_000 })

/**
 * Reads the mint account once per (network, mint): its owner is the token program (SPL Token or
 * Token-2022) and byte 44 its decimals. Neither changes for the life of a mint.
 */
export function getMintInfo(rpc: Rpc<GetAccountInfoApi>, network: string, mint: Address): Promise<MintInfo> {
  const key = `${network}:${mint}`
  let info = cache.get(key)
  if (!info) {
    info = readMint(rpc, network, mint)
    info.catch(() => cache.delete(key))
    cache.set(key, info)
  }
  return info
}

async function readMint(rpc: Rpc<GetAccountInfoApi>, network: string, mint: Address): Promise<MintInfo> {
  let account: { owner: Address; data: readonly [string, string] } | null
  try {
    ;({ value: account } = await rpc
      .getAccountInfo(mint, { encoding: 'base64', commitment: 'confirmed' })
      .send())
  } catch (cause) {
    throw new AppError('rpc_failed', { context: { network, method: 'getAccountInfo' }, cause })
  }
  const data = account ? Buffer.from(account.data[0], 'base64') : undefined
  const decimals = data?.[DECIMALS_OFFSET]
  if (
    !account ||
    (account.owner !== TOKEN_PROGRAM && account.owner !== TOKEN_2022_PROGRAM) ||
    decimals === undefined
  ) {
    throw new AppError('unknown_asset', {
      context: { network, asset: mint },
      message: `${mint} is not a token mint on ${network}`,
    })
  }
  return { tokenProgram: account.owner, decimals }
}
