import { type Address, address } from '@solana/kit'
import { type RawKey, toRawKey } from './raw-keys.js'

/** SPL Token program. */
export const TOKEN_PROGRAM: Address = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
/** SPL Token-2022 program (TransferChecked has the same layout as under SPL Token). */
export const TOKEN_2022_PROGRAM: Address = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')
/** Compute Budget program. */
export const COMPUTE_BUDGET_PROGRAM: Address = address('ComputeBudget111111111111111111111111111111')
/** SPL Memo program (v3). */
export const MEMO_PROGRAM: Address = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr')
/** Lighthouse assertion program, which Phantom and Solflare inject into transactions they sign. */
export const LIGHTHOUSE_PROGRAM: Address = address('L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95')
/** Associated Token Account program (named so a refused create-ATA instruction gets a clear message). */
export const ASSOCIATED_TOKEN_PROGRAM: Address = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')

/** Program ids as raw keys, for the facilitator's byte-level checks. */
export const RAW = {
  tokenProgram: toRawKey(TOKEN_PROGRAM) as RawKey,
  token2022Program: toRawKey(TOKEN_2022_PROGRAM) as RawKey,
  computeBudgetProgram: toRawKey(COMPUTE_BUDGET_PROGRAM) as RawKey,
  memoProgram: toRawKey(MEMO_PROGRAM) as RawKey,
  lighthouseProgram: toRawKey(LIGHTHOUSE_PROGRAM) as RawKey,
  associatedTokenProgram: toRawKey(ASSOCIATED_TOKEN_PROGRAM) as RawKey,
} as const

/** Instruction discriminators (first data byte). */
export const SET_COMPUTE_UNIT_LIMIT = 2
export const SET_COMPUTE_UNIT_PRICE = 3
export const TRANSFER_CHECKED = 12

/** Compute-unit limit the client sets: enough for TransferChecked (Token or Token-2022) plus a memo. */
export const CLIENT_COMPUTE_UNIT_LIMIT = 20_000
/** Compute-unit price the client sets, in microlamports per CU. */
export const CLIENT_COMPUTE_UNIT_PRICE = 1n

/**
 * Facilitator defaults that bound what one sponsored transaction can cost the fee payer.
 * Worst case: 5,000 lamports per signature × `maxSigners` + `ceil(limit × price / 1e6)` priority fee
 * = 2 × 5,000 + 200,000 × 50,000 / 1e6 = 20,000 lamports (0.00002 SOL). The reference caps only the
 * price, at 5,000,000 microlamports with an unbounded limit (up to 7,000,000 lamports per transaction).
 */
export const DEFAULT_LIMITS = {
  /** Highest SetComputeUnitLimit accepted (the runtime's per-instruction default). */
  maxComputeUnitLimit: 200_000,
  /** Highest SetComputeUnitPrice accepted, in microlamports per CU (the reference's smart-wallet cap). */
  maxComputeUnitPriceMicroLamports: 50_000n,
  /** Required signatures accepted: the fee payer and the token owner. */
  maxSigners: 2,
} as const

/** Instructions a payment transaction may hold: the three fixed ones plus up to three Memo / Lighthouse. */
export const MIN_INSTRUCTIONS = 3
export const MAX_INSTRUCTIONS = 6

/** Longest `extra.memo` accepted, in UTF-8 bytes (the x402 exact-SVM spec's bound). */
export const MAX_MEMO_BYTES = 256
