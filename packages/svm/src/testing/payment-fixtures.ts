// Test-only builders of payment transactions, honest and hostile (exported as @tollgate/svm/testing).
import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createNoopSigner,
  createTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type TransactionMessage,
  type TransactionMessageWithFeePayer,
} from '@solana/kit'
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget'
import { getAddMemoInstruction } from '@solana-program/memo'
import { getTransferCheckedInstruction } from '@solana-program/token'
import type { PaymentPayload, PaymentRequirements } from '@tollgate/core'
import { MEMO_PROGRAM } from '../constants.js'
import { getAssociatedTokenAddress } from '../get-associated-token-address.js'

/** What an honest payment transfers, and who signs and pays fees. */
export type PaymentFixture = {
  payer: KeyPairSigner
  feePayer: Address
  mint: Address
  tokenProgram: Address
  decimals: number
  payTo: Address
  amount: bigint
  blockhash: Blockhash
  memo?: string
}

/** A blockhash-shaped value for tests that never reach a chain. */
export const FAKE_BLOCKHASH = getBase58Decoder().decode(new Uint8Array(32).fill(7)) as Blockhash

/** The four instructions the reference client builds, with `overrides` for hostile variants. */
export async function buildPaymentInstructions(
  fixture: PaymentFixture,
  overrides: {
    units?: number
    microLamports?: bigint
    authority?: KeyPairSigner | Address
    destination?: Address
    amount?: bigint
  } = {},
): Promise<Instruction[]> {
  const authority =
    typeof overrides.authority === 'string'
      ? createNoopSigner(overrides.authority)
      : (overrides.authority ?? fixture.payer)
  const source = await getAssociatedTokenAddress(authority.address, fixture.mint, fixture.tokenProgram)
  const destination =
    overrides.destination ??
    (await getAssociatedTokenAddress(fixture.payTo, fixture.mint, fixture.tokenProgram))
  return [
    getSetComputeUnitLimitInstruction({ units: overrides.units ?? 20_000 }),
    getSetComputeUnitPriceInstruction({ microLamports: overrides.microLamports ?? 1n }),
    getTransferCheckedInstruction(
      {
        source,
        mint: fixture.mint,
        destination,
        authority,
        amount: overrides.amount ?? fixture.amount,
        decimals: fixture.decimals,
      },
      { programAddress: fixture.tokenProgram },
    ),
    getAddMemoInstruction({ memo: fixture.memo ?? crypto.randomUUID() }, { programAddress: MEMO_PROGRAM }),
  ]
}

/** Signs `instructions` (payer and any other embedded signers; the fee payer's slot stays empty) into base64. */
export async function buildPaymentTransaction(
  fixture: PaymentFixture,
  instructions?: Instruction[],
  compress?: (m: TransactionMessage & TransactionMessageWithFeePayer) => unknown,
): Promise<string> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(fixture.feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: fixture.blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions ?? [], m),
    (m) => (compress ? compress(m) : m),
  )
  const signed = await partiallySignTransactionMessageWithSigners(
    message as Parameters<typeof partiallySignTransactionMessageWithSigners>[0],
  )
  return getBase64EncodedWireTransaction(signed)
}

/** The requirements an honest payment of `fixture` answers. */
export function buildRequirements(
  fixture: PaymentFixture,
  overrides: Partial<PaymentRequirements> = {},
): PaymentRequirements {
  return {
    scheme: 'exact',
    network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    amount: fixture.amount.toString(),
    asset: fixture.mint,
    payTo: fixture.payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: fixture.feePayer, ...(fixture.memo ? { memo: fixture.memo } : {}) },
    ...overrides,
  }
}

/** A v2 payment payload for `requirements` carrying `transaction`. */
export function buildPayment(requirements: PaymentRequirements, transaction: unknown): PaymentPayload {
  return {
    x402Version: 2,
    resource: { url: 'http://merchant.test/paid' },
    accepted: requirements,
    payload: { transaction },
  }
}
