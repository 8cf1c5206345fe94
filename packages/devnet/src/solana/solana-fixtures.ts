import { type Address, lamports } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import { deriveSolanaKeypair } from './derive-solana-keypair.js'
import type { SolanaChain } from './solana-chain.js'
import {
  decodeMint,
  decodeTokenAccount,
  encodeMint,
  encodeTokenAccount,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from './token-layout.js'

/** A token mint placed on the devnet chain. */
export type SolanaFixtureToken = { symbol: string; mint: Address; decimals: number; tokenProgram: Address }

/** Devnet USDC's mint address, reused so configuration matches the public devnet. */
export const DEVNET_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' as Address

/**
 * The devnet's USDT mint. Tether has no mint on Solana devnet, so this one is ours: the public key of
 * `deriveSolanaKeypair('solana:usdt-mint')` (written out so configuration can name it without
 * deriving it). SPL Token program and 6 decimals, as USDT on mainnet (`Es9vMFrz…`).
 */
export const DEVNET_USDT_MINT = 'KoXPj3LF2ZXvPz6LFofRUjErJ4EfgEbpRZBRc7aAiMm' as Address

/**
 * The fixture tokens: USDC (SPL Token, 6 decimals) at devnet USDC's address, USDC2022 (Token-2022,
 * 6 decimals) and USDT (SPL Token, 6 decimals) at {@link DEVNET_USDT_MINT}.
 */
export function getSolanaFixtureTokens(): SolanaFixtureToken[] {
  return [
    { symbol: 'USDC', mint: DEVNET_USDC_MINT, decimals: 6, tokenProgram: TOKEN_PROGRAM },
    {
      symbol: 'USDC2022',
      mint: deriveSolanaKeypair('solana:usdc2022-mint').address,
      decimals: 6,
      tokenProgram: TOKEN_2022_PROGRAM,
    },
    { symbol: 'USDT', mint: DEVNET_USDT_MINT, decimals: 6, tokenProgram: TOKEN_PROGRAM },
  ]
}

/** Writes the fixture mints (zero supply, a deterministic mint authority, no freeze authority). */
export function placeSolanaFixtureTokens(chain: SolanaChain, tokens: SolanaFixtureToken[]): void {
  const mintAuthority = deriveSolanaKeypair('solana:mint-authority').address
  for (const token of tokens) {
    const data = encodeMint({ mintAuthority, supply: 0n, decimals: token.decimals, freezeAuthority: null })
    chain.svm.setAccount({
      address: token.mint,
      data,
      executable: false,
      lamports: lamports(chain.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      programAddress: token.tokenProgram,
      space: BigInt(data.length),
    })
  }
}

/** Sets an address's SOL balance (lamports), keeping its owner and data. */
export function setLamports(chain: SolanaChain, address: Address, amount: bigint): void {
  const account = chain.svm.getAccount(address)
  chain.svm.setAccount({
    address,
    data: account.exists ? account.data : new Uint8Array(),
    executable: account.exists ? account.executable : false,
    lamports: lamports(amount),
    programAddress: account.exists ? account.programAddress : ('11111111111111111111111111111111' as Address),
    space: account.exists ? account.space : 0n,
  })
}

/**
 * Adds `amount` (atomic units) to the owner's associated token account, creating it when missing, and
 * raises the mint's supply by the same amount so supply always equals the sum of balances.
 */
export async function mintToOwner(
  chain: SolanaChain,
  token: SolanaFixtureToken,
  owner: Address,
  amount: bigint,
): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: token.mint, tokenProgram: token.tokenProgram })
  const existing = chain.svm.getAccount(ata)
  const current = existing.exists ? decodeTokenAccount(existing.data)?.amount : 0n
  const data = encodeTokenAccount(
    { mint: token.mint, owner, amount: (current ?? 0n) + amount },
    token.tokenProgram,
  )
  chain.svm.setAccount({
    address: ata,
    data,
    executable: false,
    lamports: lamports(chain.svm.minimumBalanceForRentExemption(BigInt(data.length))),
    programAddress: token.tokenProgram,
    space: BigInt(data.length),
  })
  const mintAccount = chain.svm.getAccount(token.mint)
  const mint = mintAccount.exists ? decodeMint(mintAccount.data) : null
  if (mintAccount.exists && mint) {
    const mintData = encodeMint({ ...mint, supply: mint.supply + amount })
    chain.svm.setAccount({ ...mintAccount, data: mintData })
  }
  return ata
}
