import { REASONS, type SettleResponse } from '@tollgate/core'
import { getAddress, type Hash, keccak256, toHex } from 'viem'
import { beforeEach, describe, expect, test } from 'vitest'
import { createFakeChain, createFakeRelayer, MERCHANT, NETWORK, USDC } from '../testing/fake-chain.js'
import { type PaymentProbe, type PaymentUse, recoverSettlement } from './recover-settlement.js'

const PAYER = getAddress('0x00000000000000000000000000000000000000aa')
const RECORDED = keccak256(toHex('recorded')) as Hash
const RESENT = keccak256(toHex('resent')) as Hash
const ELSEWHERE = keccak256(toHex('elsewhere')) as Hash
const DEADLINE = 1_000_000n
const expected = { token: USDC, from: PAYER, to: getAddress(MERCHANT), value: 10_000n }

let chain: ReturnType<typeof createFakeChain>

/** A probe over plain values; `queries` lists the block ranges searched. */
function createProbe(options: {
  used: boolean | undefined | (() => boolean)
  uses?: (from: bigint, to: bigint) => PaymentUse[]
}) {
  const queries: Array<[bigint, bigint]> = []
  const probe: PaymentProbe = {
    isUsed: async () => (typeof options.used === 'function' ? options.used() : options.used),
    isExpiredAt: (chainTime) => chainTime >= DEADLINE,
    async findUses(from, to) {
      queries.push([from, to])
      return options.uses?.(from, to) ?? []
    },
    reasons: { expired: 'expired_reason', voided: 'voided_reason' },
  }
  return { probe, queries }
}

/** Runs a recovery of RECORDED whose receipt never comes (unless `receipt` says otherwise). */
async function recover(
  probe: PaymentProbe,
  options: {
    receipt?: 'success' | 'reverted' | 'timeout'
    resend?: (record: (tx: string) => Promise<void>) => Promise<SettleResponse>
  } = {},
) {
  const relayer = createFakeRelayer({
    receipt: 'success',
    receiptOf: (hash) => (hash === RECORDED ? (options.receipt ?? 'timeout') : undefined),
    transfer: expected,
  })
  const recorded: string[] = []
  const resends: number[] = []
  const answer = await recoverSettlement({
    client: chain.client,
    relayer: relayer.relayer,
    hash: RECORDED,
    network: NETWORK,
    payer: PAYER,
    expected,
    timeoutMs: 10,
    lookbackBlocks: 10_000n,
    expiryMarginSeconds: 60n,
    probe,
    recordBroadcast: async (tx) => {
      recorded.push(tx)
    },
    resend: async (record) => {
      resends.push(1)
      if (options.resend) {
        return options.resend(record)
      }
      await record(RESENT)
      return { success: true, transaction: RESENT, network: NETWORK, payer: PAYER }
    },
  })
  return { answer, recorded, resends: resends.length }
}

beforeEach(() => {
  chain = createFakeChain()
  chain.state.head = { number: 100_000n, timestamp: DEADLINE - 100n }
})

describe('recoverSettlement', () => {
  test('default: a receipt of the recorded transaction is the answer; nothing else is read', async () => {
    const { probe, queries } = createProbe({ used: true })
    const { answer, resends } = await recover(probe, { receipt: 'success' })
    expect(answer).toEqual({ success: true, transaction: RECORDED, network: NETWORK, payer: PAYER })
    expect(resends).toBe(0)
    expect(queries).toEqual([])
  })

  test('behavior: a dropped transaction of an unused, valid payment is settled anew and recorded', async () => {
    const { answer, recorded, resends } = await recover(createProbe({ used: false }).probe)
    expect(answer).toMatchObject({ success: true, transaction: RESENT })
    expect(recorded).toEqual([RESENT])
    expect(resends).toBe(1)
  })

  test('behavior: a transaction the node still holds, or has mined, stays pending', async () => {
    const { probe } = createProbe({ used: false })
    chain.state.transactions.set(RECORDED, { hash: RECORDED, blockNumber: null, to: USDC, input: '0x' })
    const inPool = await recover(probe)
    expect(inPool.answer).toMatchObject({
      success: false,
      errorReason: REASONS.settlementPending,
      errorMessage: "the transaction is still in the node's pool",
      transaction: RECORDED,
    })
    chain.state.transactions.set(RECORDED, { hash: RECORDED, blockNumber: 99_999n, to: USDC, input: '0x' })
    const mined = await recover(probe)
    expect(mined.answer).toMatchObject({ errorReason: REASONS.settlementPending, transaction: RECORDED })
    expect(inPool.resends + mined.resends).toBe(0)
  })

  test('behavior: unused and expired by chain time (past the margin) is a final failure', async () => {
    const { probe } = createProbe({ used: false })
    chain.state.head.timestamp = DEADLINE - 7n
    expect((await recover(probe)).resends).toBe(1)
    // Neither sent (it would land too late) nor failed (not provably expired yet).
    for (const timestamp of [DEADLINE - 6n, DEADLINE + 59n]) {
      chain.state.head.timestamp = timestamp
      const tooLate = await recover(probe)
      expect(tooLate.answer).toMatchObject({ errorReason: REASONS.settlementPending, transaction: RECORDED })
      expect(tooLate.resends).toBe(0)
    }
    chain.state.head.timestamp = DEADLINE + 60n
    const expired = await recover(probe)
    expect(expired.answer).toEqual({
      success: false,
      errorReason: 'expired_reason',
      errorMessage: "the authorization expired before any transaction used it; the payer's funds never moved",
      transaction: '',
      network: NETWORK,
      payer: PAYER,
    })
    expect(expired.resends).toBe(0)
    // Expired even while the node still holds the transaction: it can only revert now.
    chain.state.transactions.set(RECORDED, { hash: RECORDED, blockNumber: null, to: USDC, input: '0x' })
    expect((await recover(probe)).answer).toMatchObject({ errorReason: 'expired_reason' })
  })

  test('behavior: a used nonce is answered with the transaction that made the transfer', async () => {
    const { probe, queries } = createProbe({
      used: true,
      uses: (from) => (from === 96_001n ? [{ kind: 'transfer', transaction: ELSEWHERE }] : []),
    })
    const { answer, resends } = await recover(probe)
    expect(answer).toEqual({ success: true, transaction: ELSEWHERE, network: NETWORK, payer: PAYER })
    expect(resends).toBe(0)
    expect(queries).toEqual([
      [98_001n, 100_000n],
      [96_001n, 98_000n],
    ])
  })

  test('behavior: a voided nonce fails for good, unless a transfer is found anywhere in the window', async () => {
    const voided = createProbe({ used: true, uses: () => [{ kind: 'void', message: 'canceled' }] })
    expect((await recover(voided.probe)).answer).toMatchObject({
      success: false,
      errorReason: 'voided_reason',
      errorMessage: 'canceled',
      transaction: '',
    })
    const later = createProbe({
      used: true,
      uses: (from) =>
        from === 90_001n
          ? [{ kind: 'transfer', transaction: ELSEWHERE }]
          : from === 98_001n
            ? [{ kind: 'void', message: 'invalidated after use' }]
            : [],
    })
    expect((await recover(later.probe)).answer).toMatchObject({ success: true, transaction: ELSEWHERE })
  })

  test('behavior: a used nonce without a use in the lookback window stays pending', async () => {
    const { probe, queries } = createProbe({ used: true })
    const { answer } = await recover(probe)
    expect(answer).toMatchObject({
      errorReason: REASONS.settlementPending,
      errorMessage:
        "the payment's nonce is used, but no transaction using it was found in the last 10000 blocks",
    })
    expect(queries).toHaveLength(5)
    expect(queries.at(-1)).toEqual([90_001n, 92_000n])
  })

  test('behavior: the window stops at block 0 on a young chain', async () => {
    chain.state.head.number = 2_500n
    const { probe, queries } = createProbe({ used: true })
    await recover(probe)
    expect(queries).toEqual([
      [501n, 2_500n],
      [0n, 500n],
    ])
  })

  test('behavior: unreadable state, RPC failures and refused re-sends stay pending', async () => {
    const unreadable = await recover(createProbe({ used: undefined }).probe)
    expect(unreadable.answer).toMatchObject({ errorReason: REASONS.settlementPending, transaction: RECORDED })
    const refused = await recover(createProbe({ used: false }).probe, {
      resend: async () => ({
        success: false,
        errorReason: 'invalid_exact_evm_insufficient_balance',
        transaction: '',
        network: NETWORK,
      }),
    })
    expect(refused.answer).toMatchObject({
      errorReason: REASONS.settlementPending,
      errorMessage: 'not sent again (invalid_exact_evm_insufficient_balance)',
      transaction: RECORDED,
    })
    // Recorded, then the send failed: the answer carries what the store now holds.
    const sendFailed = await recover(createProbe({ used: false }).probe, {
      resend: async (record) => {
        await record(RESENT)
        return {
          success: false,
          errorReason: 'invalid_exact_evm_transaction_failed',
          transaction: '',
          network: NETWORK,
        }
      },
    })
    expect(sendFailed.answer).toMatchObject({ errorReason: REASONS.settlementPending, transaction: RESENT })
    chain.client.getBlock = async () => {
      throw new Error('node down')
    }
    const down = await recover(createProbe({ used: false }).probe)
    expect(down.answer).toMatchObject({
      errorReason: REASONS.settlementPending,
      errorMessage: 'recovery could not read the chain: node down',
      transaction: RECORDED,
    })
  })

  test('behavior: a reverted transaction stands unless the payment moved in another one', async () => {
    const unused = await recover(createProbe({ used: false }).probe, { receipt: 'reverted' })
    expect(unused.answer).toMatchObject({
      success: false,
      errorReason: REASONS.evmTransactionFailed,
      transaction: RECORDED,
    })
    const elsewhere = createProbe({ used: true, uses: () => [{ kind: 'transfer', transaction: ELSEWHERE }] })
    expect((await recover(elsewhere.probe, { receipt: 'reverted' })).answer).toMatchObject({
      success: true,
      transaction: ELSEWHERE,
    })
    // The re-sent transaction reverted because the dropped one resurfaced and won the nonce.
    let spent = false
    const late = createProbe({
      used: () => spent,
      uses: () => [{ kind: 'transfer', transaction: ELSEWHERE }],
    })
    const resurfaced = await recover(late.probe, {
      resend: async (record) => {
        await record(RESENT)
        spent = true
        return {
          success: false,
          errorReason: REASONS.evmTransactionFailed,
          transaction: RESENT,
          network: NETWORK,
        }
      },
    })
    expect(resurfaced.answer).toMatchObject({ success: true, transaction: ELSEWHERE })
  })
})
