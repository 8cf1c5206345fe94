import { type Address, type Blockhash, generateKeyPairSigner, getBase58Decoder } from '@solana/kit'
import { type PaymentPayload, REASONS, type SettleResponse, SOLANA_DEVNET } from '@tollgate/core'
import { buildPaymentInstructions, buildPaymentTransaction } from '@tollgate/svm/testing'
import type { PaymentRequirements as X402Requirements } from '@x402/core/types'
import { ExactSvmScheme as OfficialSvmClient } from '@x402/svm/exact/client'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRecordingContext, type SvmHarness, startSvmHarness } from './harness.js'

let h: SvmHarness

beforeAll(async () => {
  h = await startSvmHarness()
})

afterAll(async () => {
  await h?.stop()
})

const lamportsOf = async (address: Address) => BigInt((await h.rpc.getBalance(address).send()).value)
const feePayerOf = (payment: PaymentPayload) => payment.accepted.extra?.feePayer as Address

describe('solana scheme on the devnet', () => {
  test('default: our client pays, the facilitator verifies and settles one USDC transfer', async () => {
    const payer = h.payer(0)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 2500n, payTo: merchant })
    const payment = await h.pay(payer, requirements)
    const feePayer = feePayerOf(payment)
    const [payerBefore, feePayerBefore] = await Promise.all([
      h.tokenBalance(payer.address, 'USDC'),
      lamportsOf(feePayer),
    ])

    expect(await h.facilitator.verify(payment, requirements)).toEqual({
      isValid: true,
      payer: payer.address,
    })
    const { recorded, context } = createRecordingContext()
    const settled = await h.facilitator.settle(payment, requirements, context)

    expect(settled).toMatchObject({ success: true, network: SOLANA_DEVNET, payer: payer.address })
    expect(recorded).toEqual([settled.transaction])
    expect(await h.tokenBalance(merchant, 'USDC')).toBe(2500n)
    expect(await h.tokenBalance(payer.address, 'USDC')).toBe(payerBefore - 2500n)
    // Two signatures at 5,000 lamports plus ceil(20,000 CU × 1 microlamport / 1e6) = 1 lamport of priority fee.
    expect(feePayerBefore - (await lamportsOf(feePayer))).toBe(10_001n)
    const status = (await h.rpc.getSignatureStatuses([settled.transaction as never]).send()).value[0]
    expect(status?.err).toBeNull()
  })

  test('behavior: Token-2022 payment with a memo the requirements ask for', async () => {
    const payer = h.payer(1)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({
      asset: 'USDC2022',
      amount: 1_000_000n,
      payTo: merchant,
      memo: 'invoice 7',
    })
    const payment = await h.pay(payer, requirements)
    expect(await h.facilitator.verify(payment, requirements)).toMatchObject({ isValid: true })
    const settled = await h.facilitator.settle(payment, requirements, createRecordingContext().context)
    expect(settled).toMatchObject({ success: true, payer: payer.address })
    expect(await h.tokenBalance(merchant, 'USDC2022')).toBe(1_000_000n)
  })

  test('behavior: the official @x402/svm client pays through our facilitator', async () => {
    const payer = h.payer(2)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 777n, payTo: merchant })
    const official = new OfficialSvmClient(payer, { rpcUrl: h.rpcUrl })
    const partial = await official.createPaymentPayload(2, requirements as X402Requirements)
    const payment: PaymentPayload = {
      x402Version: 2,
      resource: { url: 'http://merchant.test/paid' },
      accepted: requirements,
      payload: partial.payload,
    }
    expect(await h.facilitator.verify(payment, requirements)).toEqual({
      isValid: true,
      payer: payer.address,
    })
    const settled = await h.facilitator.settle(payment, requirements, createRecordingContext().context)
    expect(settled).toMatchObject({ success: true, payer: payer.address })
    expect(await h.tokenBalance(merchant, 'USDC')).toBe(777n)
  })

  test('behavior: 20 concurrent settles of one payment through a claim give one transfer and one signature', async () => {
    const payer = h.payer(0)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 100n, payTo: merchant })
    const payment = await h.pay(payer, requirements)
    // A stand-in for the facilitator's settlement store: the first caller claims the key, the rest share its result.
    const claims = new Map<string, Promise<SettleResponse>>()
    let broadcasts = 0
    const settleOnce = () => {
      const key = h.facilitator.getSettlementKey(payment, requirements)
      if (!key) {
        throw new Error('no settlement key')
      }
      let settling = claims.get(key)
      if (!settling) {
        settling = h.facilitator.settle(payment, requirements, {
          recordBroadcast: async () => {
            broadcasts++
          },
        })
        claims.set(key, settling)
      }
      return settling
    }
    const results = await Promise.all(Array.from({ length: 20 }, settleOnce))
    expect(new Set(results.map((r) => r.transaction)).size).toBe(1)
    expect(results.every((r) => r.success)).toBe(true)
    expect(broadcasts).toBe(1)
    expect(await h.tokenBalance(merchant, 'USDC')).toBe(100n)
  })

  test('behavior: even without a claim, concurrent settles co-sign the same transaction and it lands once', async () => {
    const payer = h.payer(0)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 100n, payTo: merchant })
    const payment = await h.pay(payer, requirements)
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.facilitator.settle(payment, requirements, createRecordingContext().context),
      ),
    )
    // Ed25519 is deterministic: every co-signature, and so every transaction id, is the same.
    expect(new Set(results.map((r) => r.transaction)).size).toBe(1)
    expect(results.every((r) => r.success)).toBe(true)
    expect(await h.tokenBalance(merchant, 'USDC')).toBe(100n)
  })

  test('behavior: a settled payment re-settled with previousTransaction is only re-awaited', async () => {
    const payer = h.payer(0)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 42n, payTo: merchant })
    const payment = await h.pay(payer, requirements)
    const first = await h.facilitator.settle(payment, requirements, createRecordingContext().context)
    const { recorded, context } = createRecordingContext(first.transaction)
    const again = await h.facilitator.settle(payment, requirements, context)
    expect(again).toEqual(first)
    expect(recorded).toEqual([])
    expect(await h.tokenBalance(merchant, 'USDC')).toBe(42n)
  })

  test('behavior: an expired blockhash is refused by verify and settle, and nothing moves', async () => {
    const payer = h.payer(0)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 5n, payTo: merchant })
    const payment = await h.pay(payer, requirements)
    await h.advanceBlocks(151)
    const verified = await h.facilitator.verify(payment, requirements)
    expect(verified).toMatchObject({ isValid: false, invalidReason: REASONS.svmSimulationFailed })
    expect(verified.invalidMessage).toMatch(/^blockhash not found/)
    const settled = await h.facilitator.settle(payment, requirements, createRecordingContext().context)
    expect(settled).toMatchObject({
      success: false,
      errorReason: REASONS.svmBlockHeightExceeded,
      transaction: '',
    })
    expect(await h.tokenBalance(merchant, 'USDC')).toBe(0n)
  })

  test('behavior: a recorded transaction that never landed ends as expired once its blockhash is gone', async () => {
    const payer = h.payer(0)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 5n, payTo: merchant })
    const payment = await h.pay(payer, requirements)
    const neverSent = getBase58Decoder().decode(new Uint8Array(64).fill(9))
    const facilitator = h.createFacilitator({ confirmTimeoutMs: 300 })
    const pending = await facilitator.settle(payment, requirements, createRecordingContext(neverSent).context)
    expect(pending).toMatchObject({
      success: false,
      errorReason: REASONS.settlementPending,
      transaction: neverSent,
    })
    await h.advanceBlocks(151)
    const expired = await facilitator.settle(payment, requirements, createRecordingContext(neverSent).context)
    expect(expired).toMatchObject({
      success: false,
      errorReason: REASONS.svmBlockHeightExceeded,
      transaction: neverSent,
    })
  })

  test('behavior: insufficient token balance or a missing merchant token account fails simulation', async () => {
    const poor = await generateKeyPairSigner()
    await h.devnet.fund({ network: SOLANA_DEVNET, address: poor.address, asset: 'USDC', amount: 1n })
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 2n, payTo: merchant })
    const payment = await h.pay(poor, requirements)
    expect(await h.facilitator.verify(payment, requirements)).toMatchObject({
      isValid: false,
      invalidReason: REASONS.svmSimulationFailed,
      payer: poor.address,
    })
    const feePayerBefore = await lamportsOf(feePayerOf(payment))
    const settled = await h.facilitator.settle(payment, requirements, createRecordingContext().context)
    expect(settled).toMatchObject({
      success: false,
      errorReason: REASONS.svmSimulationFailed,
      transaction: '',
    })
    // Preflight refused it: the fee payer paid nothing.
    expect(await lamportsOf(feePayerOf(payment))).toBe(feePayerBefore)

    const payer = h.payer(0)
    const noAccount = (await generateKeyPairSigner()).address
    const toNowhere = h.requirementsFor({ amount: 2n, payTo: noAccount })
    expect(await h.facilitator.verify(await h.pay(payer, toNowhere), toNowhere)).toMatchObject({
      isValid: false,
      invalidReason: REASONS.svmSimulationFailed,
    })
  })

  test('behavior: a drain attempt is refused at settle and costs the fee payer nothing', async () => {
    const payer = h.payer(0)
    const merchant = await h.createMerchant()
    const requirements = h.requirementsFor({ amount: 10n, payTo: merchant })
    const feePayer = requirements.extra?.feePayer as Address
    const { value } = await h.rpc.getLatestBlockhash().send()
    const fixture = {
      payer: payer,
      feePayer,
      mint: h.assets.USDC.address as Address,
      tokenProgram: h.assets.USDC.tokenProgram as Address,
      decimals: 6,
      payTo: merchant,
      amount: 10n,
      blockhash: value.blockhash as Blockhash,
    }
    const before = await lamportsOf(feePayer)
    for (const [overrides, reason] of [
      [{ microLamports: 1_000_000_000n }, REASONS.svmComputePriceTooHigh],
      [{ units: 1_400_000 }, REASONS.svmComputeLimitTooHigh],
      [{ authority: feePayer }, REASONS.svmFeePayerTransferringFunds],
    ] as const) {
      const transaction = await buildPaymentTransaction(
        fixture,
        await buildPaymentInstructions(fixture, overrides),
      )
      const payment: PaymentPayload = { x402Version: 2, accepted: requirements, payload: { transaction } }
      const { recorded, context } = createRecordingContext()
      expect(await h.facilitator.settle(payment, requirements, context)).toMatchObject({
        success: false,
        errorReason: reason,
        transaction: '',
      })
      expect(recorded).toEqual([])
    }
    expect(await lamportsOf(feePayer)).toBe(before)
  })

  test('default: getFeePayerBalances reports every fee payer', async () => {
    const balances = await h.facilitator.getFeePayerBalances()
    expect(balances.map((b) => b.address).sort()).toEqual(h.feePayers.map((f) => f.address).sort())
    expect(balances.every((b) => b.network === SOLANA_DEVNET && b.lamports > 0n)).toBe(true)
  })
})
