import type { Address } from '@solana/kit'
import { REASONS } from '@tollgate/core'
import {
  ASSOCIATED_TOKEN_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  LIGHTHOUSE_PROGRAM,
  MAX_INSTRUCTIONS,
  MEMO_PROGRAM,
  MIN_INSTRUCTIONS,
  SET_COMPUTE_UNIT_LIMIT,
  SET_COMPUTE_UNIT_PRICE,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  TRANSFER_CHECKED,
} from './constants.js'
import type { PaymentMessage } from './decode-payment-transaction.js'

/** The TransferChecked a payment transaction makes. */
export type PaymentTransfer = {
  tokenProgram: Address
  source: Address
  mint: Address
  destination: Address
  /** The token owner who signed the transfer: the x402 `payer`. */
  authority: Address
  amount: bigint
  decimals: number
}

/** Caps on what a sponsored transaction may spend (see `DEFAULT_LIMITS`). */
export type SolanaLimits = {
  maxComputeUnitLimit: number
  maxComputeUnitPriceMicroLamports: bigint
  maxSigners: number
}

/** A refusal: an x402 reason string and a sentence for people. */
export type PaymentRefusal = { reason: string; message: string }

type Instruction = PaymentMessage['instructions'][number]
const memoDecoder = new TextDecoder('utf-8', { fatal: true })

const refuse = (reason: string, message: string): PaymentRefusal => ({ reason, message })

/**
 * Checks the fixed layout of an x402 exact-SVM payment (no RPC): [SetComputeUnitLimit ≤ cap,
 * SetComputeUnitPrice ≤ cap, TransferChecked under SPL Token or Token-2022, then only Memo or
 * Lighthouse], that the fee payer (static account 0) is in no instruction's accounts (stricter than
 * the reference, which only checks the transfer authority), that no facilitator key is the
 * authority, and the memo the requirements ask for. Returns the transfer, or why it is refused.
 */
export function checkPaymentInstructions(
  message: PaymentMessage,
  options: { limits: SolanaLimits; facilitatorKeys: ReadonlySet<string>; memo: string | undefined },
): PaymentTransfer | PaymentRefusal {
  const { instructions, staticAccounts } = message
  if (instructions.length < MIN_INSTRUCTIONS || instructions.length > MAX_INSTRUCTIONS) {
    return refuse(
      REASONS.svmInstructionsLength,
      `expected ${MIN_INSTRUCTIONS} to ${MAX_INSTRUCTIONS} instructions, got ${instructions.length}`,
    )
  }
  const programOf = (instruction: Instruction) => staticAccounts[instruction.programAddressIndex]
  const [limitIx, priceIx, transferIx] = instructions as [Instruction, Instruction, Instruction]
  const budget = checkComputeBudget(limitIx, priceIx, programOf, options.limits)
  if (budget) {
    return budget
  }
  const transfer = parseTransfer(transferIx, staticAccounts)
  if (!transfer) {
    return refuse(
      REASONS.svmNoTransferInstruction,
      'instruction 3 must be TransferChecked (SPL Token or Token-2022)',
    )
  }
  if (options.facilitatorKeys.has(transfer.authority)) {
    return refuse(REASONS.svmFeePayerTransferringFunds, 'the transfer authority is a facilitator key')
  }
  for (const [index, instruction] of instructions.entries()) {
    // Duplicate static accounts are refused when decoding, so index 0 is the only way to name the fee payer.
    if ((instruction.accountIndices ?? []).includes(0)) {
      return refuse(
        REASONS.svmFeePayerInInstructionAccounts,
        `instruction ${index + 1} lists the fee payer among its accounts`,
      )
    }
  }
  return checkOptionalInstructions(instructions.slice(MIN_INSTRUCTIONS), programOf, options.memo) ?? transfer
}

function checkComputeBudget(
  limitIx: Instruction,
  priceIx: Instruction,
  programOf: (instruction: Instruction) => Address | undefined,
  limits: SolanaLimits,
): PaymentRefusal | undefined {
  const limitData = limitIx.data
  if (
    programOf(limitIx) !== COMPUTE_BUDGET_PROGRAM ||
    limitData?.length !== 5 ||
    limitData[0] !== SET_COMPUTE_UNIT_LIMIT
  ) {
    return refuse(REASONS.svmComputeLimitInstruction, 'instruction 1 must be SetComputeUnitLimit')
  }
  const units = readU32(limitData, 1)
  if (units > limits.maxComputeUnitLimit) {
    return refuse(
      REASONS.svmComputeLimitTooHigh,
      `compute unit limit ${units} exceeds ${limits.maxComputeUnitLimit}`,
    )
  }
  const priceData = priceIx.data
  if (
    programOf(priceIx) !== COMPUTE_BUDGET_PROGRAM ||
    priceData?.length !== 9 ||
    priceData[0] !== SET_COMPUTE_UNIT_PRICE
  ) {
    return refuse(REASONS.svmComputePriceInstruction, 'instruction 2 must be SetComputeUnitPrice')
  }
  const price = readU64(priceData, 1)
  if (price > limits.maxComputeUnitPriceMicroLamports) {
    return refuse(
      REASONS.svmComputePriceTooHigh,
      `compute unit price ${price} microlamports exceeds ${limits.maxComputeUnitPriceMicroLamports}`,
    )
  }
  return undefined
}

/** The transfer of a payment transaction (its third instruction), if that is a TransferChecked. */
export function findPaymentTransfer(message: PaymentMessage): PaymentTransfer | undefined {
  const instruction = message.instructions[MIN_INSTRUCTIONS - 1]
  return instruction ? parseTransfer(instruction, message.staticAccounts) : undefined
}

function parseTransfer(
  instruction: Instruction,
  staticAccounts: readonly Address[],
): PaymentTransfer | undefined {
  const tokenProgram = staticAccounts[instruction.programAddressIndex]
  const data = instruction.data
  const indexes = instruction.accountIndices ?? []
  if (
    (tokenProgram !== TOKEN_PROGRAM && tokenProgram !== TOKEN_2022_PROGRAM) ||
    data?.length !== 10 ||
    data[0] !== TRANSFER_CHECKED ||
    // source, mint, destination, owner; more accounts would be multisig co-signers.
    indexes.length !== 4
  ) {
    return undefined
  }
  // Accounts must be static (lookup tables are refused before this) for the checks to mean anything.
  const [source, mint, destination, authority] = indexes.map((i) => staticAccounts[i])
  if (!source || !mint || !destination || !authority) {
    return undefined
  }
  return {
    tokenProgram,
    source,
    mint,
    destination,
    authority,
    amount: readU64(data, 1),
    decimals: data[9] ?? 0,
  }
}

function checkOptionalInstructions(
  optional: readonly Instruction[],
  programOf: (instruction: Instruction) => Address | undefined,
  memo: string | undefined,
): PaymentRefusal | undefined {
  const memos: Instruction[] = []
  for (const [offset, instruction] of optional.entries()) {
    const program = programOf(instruction)
    if (program === MEMO_PROGRAM) {
      memos.push(instruction)
    } else if (program !== LIGHTHOUSE_PROGRAM) {
      const what =
        program === ASSOCIATED_TOKEN_PROGRAM
          ? 'creates a token account (the fee payer would fund its rent)'
          : `calls ${program}, which is not Memo or Lighthouse`
      return refuse(
        REASONS.svmUnknownOptionalInstruction,
        `instruction ${MIN_INSTRUCTIONS + offset + 1} ${what}`,
      )
    }
  }
  if (memo === undefined) {
    return undefined
  }
  const [only, ...more] = memos
  if (!only || more.length > 0) {
    return refuse(REASONS.svmMemoCount, `expected exactly one memo, got ${memos.length}`)
  }
  let text: string | undefined
  try {
    text = memoDecoder.decode(only.data ?? new Uint8Array())
  } catch {
    text = undefined
  }
  return text === memo ? undefined : refuse(REASONS.svmMemoMismatch, 'the memo differs from extra.memo')
}

function readU32(bytes: ArrayLike<number>, offset: number): number {
  let value = 0
  for (let i = 3; i >= 0; i--) {
    value = value * 256 + (bytes[offset + i] ?? 0)
  }
  return value
}

function readU64(bytes: ArrayLike<number>, offset: number): bigint {
  return (BigInt(readU32(bytes, offset + 4)) << 32n) | BigInt(readU32(bytes, offset))
}
