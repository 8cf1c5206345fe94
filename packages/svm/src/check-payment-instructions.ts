import { REASONS } from '@tollgate/core'
import {
  MAX_INSTRUCTIONS,
  MIN_INSTRUCTIONS,
  RAW,
  SET_COMPUTE_UNIT_LIMIT,
  SET_COMPUTE_UNIT_PRICE,
  TRANSFER_CHECKED,
} from './constants.js'
import type { CompiledInstruction, PaymentMessage } from './decode-payment-transaction.js'
import { type RawKey, toAddress } from './raw-keys.js'

/** The TransferChecked a payment transaction makes (keys raw). */
export type PaymentTransfer = {
  tokenProgram: RawKey
  source: RawKey
  mint: RawKey
  destination: RawKey
  /** The token owner who signed the transfer: the x402 `payer`. */
  authority: RawKey
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
  options: { limits: SolanaLimits; facilitatorKeys: ReadonlySet<RawKey>; memo: string | undefined },
): PaymentTransfer | PaymentRefusal {
  const { instructions, accountKeys } = message
  if (instructions.length < MIN_INSTRUCTIONS || instructions.length > MAX_INSTRUCTIONS) {
    return refuse(
      REASONS.svmInstructionsLength,
      `expected ${MIN_INSTRUCTIONS} to ${MAX_INSTRUCTIONS} instructions, got ${instructions.length}`,
    )
  }
  const programOf = (instruction: CompiledInstruction) => accountKeys[instruction.programIndex]
  const [limitIx, priceIx, transferIx] = instructions as [
    CompiledInstruction,
    CompiledInstruction,
    CompiledInstruction,
  ]
  const budget = checkComputeBudget(limitIx, priceIx, programOf, options.limits)
  if (budget) {
    return budget
  }
  const transfer = parseTransfer(transferIx, accountKeys)
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
    if (instruction.accounts.includes(0)) {
      return refuse(
        REASONS.svmFeePayerInInstructionAccounts,
        `instruction ${index + 1} lists the fee payer among its accounts`,
      )
    }
  }
  return checkOptionalInstructions(instructions.slice(MIN_INSTRUCTIONS), programOf, options.memo) ?? transfer
}

function checkComputeBudget(
  limitIx: CompiledInstruction,
  priceIx: CompiledInstruction,
  programOf: (instruction: CompiledInstruction) => RawKey | undefined,
  limits: SolanaLimits,
): PaymentRefusal | undefined {
  const limitData = limitIx.data
  if (
    programOf(limitIx) !== RAW.computeBudgetProgram ||
    limitData.length !== 5 ||
    limitData[0] !== SET_COMPUTE_UNIT_LIMIT
  ) {
    return refuse(REASONS.svmComputeLimitInstruction, 'instruction 1 must be SetComputeUnitLimit')
  }
  const units = limitData.readUInt32LE(1)
  if (units > limits.maxComputeUnitLimit) {
    return refuse(
      REASONS.svmComputeLimitTooHigh,
      `compute unit limit ${units} exceeds ${limits.maxComputeUnitLimit}`,
    )
  }
  const priceData = priceIx.data
  if (
    programOf(priceIx) !== RAW.computeBudgetProgram ||
    priceData.length !== 9 ||
    priceData[0] !== SET_COMPUTE_UNIT_PRICE
  ) {
    return refuse(REASONS.svmComputePriceInstruction, 'instruction 2 must be SetComputeUnitPrice')
  }
  const price = priceData.readBigUInt64LE(1)
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
  return instruction ? parseTransfer(instruction, message.accountKeys) : undefined
}

function parseTransfer(
  instruction: CompiledInstruction,
  accountKeys: readonly RawKey[],
): PaymentTransfer | undefined {
  const tokenProgram = accountKeys[instruction.programIndex]
  const { data, accounts } = instruction
  if (
    (tokenProgram !== RAW.tokenProgram && tokenProgram !== RAW.token2022Program) ||
    data.length !== 10 ||
    data[0] !== TRANSFER_CHECKED ||
    // source, mint, destination, owner; more accounts would be multisig co-signers.
    accounts.length !== 4
  ) {
    return undefined
  }
  // Accounts must be static (lookup tables are refused before this) for the checks to mean anything.
  const [source, mint, destination, authority] = Array.from(accounts, (i) => accountKeys[i])
  if (!source || !mint || !destination || !authority) {
    return undefined
  }
  const amount = data.readBigUInt64LE(1)
  return { tokenProgram, source, mint, destination, authority, amount, decimals: data[9] ?? 0 }
}

function checkOptionalInstructions(
  optional: readonly CompiledInstruction[],
  programOf: (instruction: CompiledInstruction) => RawKey | undefined,
  memo: string | undefined,
): PaymentRefusal | undefined {
  const memos: CompiledInstruction[] = []
  for (const [offset, instruction] of optional.entries()) {
    const program = programOf(instruction)
    if (program === RAW.memoProgram) {
      memos.push(instruction)
    } else if (program !== RAW.lighthouseProgram) {
      const what =
        program === RAW.associatedTokenProgram
          ? 'creates a token account (the fee payer would fund its rent)'
          : `calls ${program ? toAddress(program) : 'an unknown program'}, which is not Memo or Lighthouse`
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
    text = memoDecoder.decode(only.data)
  } catch {
    text = undefined
  }
  return text === memo ? undefined : refuse(REASONS.svmMemoMismatch, 'the memo differs from extra.memo')
}
