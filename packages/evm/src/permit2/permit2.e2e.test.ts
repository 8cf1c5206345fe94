import type { PaymentPayload, PaymentRequirements, SchemeFacilitator } from '@tollgate/core'
import { type Address, erc20Abi, getAddress, parseEventLogs } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PERMIT2_ADDRESS } from '../constants.js'
import type { Relayer } from '../relayer/types.js'
import { type EvmHarness, startEvmHarness } from '../testing/devnet-harness.js'
import { approvePermit2 } from './approve-permit2.js'
import { createPermit2Client } from './client.js'
import { createPermit2Facilitator } from './facilitator.js'
import { createPermit2Server } from './server.js'

const BASE = 'eip155:84532'
const BSC = 'eip155:97'
const merchant = '0x00000000000000000000000000000000000000b2' as Address

let harness: EvmHarness
const relayers: Relayer[] = []
let facilitator: SchemeFacilitator
const noRecord = { recordBroadcast: async () => undefined }

beforeAll(async () => {
  harness = await startEvmHarness([BASE, BSC])
  const networks = Object.fromEntries(
    [BASE, BSC].map((network) => {
      const relayer = harness.createRelayer(network)
      relayers.push(relayer)
      return [network, { client: harness.clientOf(network), relayer }]
    }),
  )
  facilitator = createPermit2Facilitator({ networks, assets: harness.assets })
})

afterAll(async () => {
  for (const relayer of relayers) {
    relayer.close()
  }
  await harness?.stop()
})

function requirements(network: string, symbol: string, amount: bigint): PaymentRequirements {
  const asset = harness.assets.get(network, symbol)
  return createPermit2Server().createRequirements({ asset, amount, payTo: merchant })
}

async function pay(
  req: PaymentRequirements,
  account: PrivateKeyAccount | undefined,
): Promise<PaymentPayload> {
  if (!account) {
    throw new Error('no payer')
  }
  return { x402Version: 2, accepted: req, payload: await createPermit2Client({ account }).createPayload(req) }
}

describe('permit2 on the devnet', () => {
  test.each([
    [BASE, 'USDT', 10_000n],
    [BASE, 'USDC', 10_000n],
    [BSC, 'USDT', 10n ** 16n],
  ])('default: %s %s — sign, verify, settle, balances and Transfer log', async (network, symbol, amount) => {
    const req = requirements(network, symbol, amount)
    const payer = harness.payers(network)[0]
    const payment = await pay(req, payer)
    const token = getAddress(req.asset)
    const before = await harness.balanceOf(network, token, merchant)
    expect(await facilitator.verify(payment, req)).toEqual({ isValid: true, payer: payer?.address })
    const settled = await facilitator.settle(payment, req, noRecord)
    expect(settled).toMatchObject({ success: true, network, payer: payer?.address })
    expect(await harness.balanceOf(network, token, merchant)).toBe(before + amount)
    const receipt = await harness
      .clientOf(network)
      .getTransactionReceipt({ hash: settled.transaction as `0x${string}` })
    const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' })
    expect(transfers.map((t) => t.args)).toEqual([
      { from: payer?.address, to: getAddress(merchant), value: amount },
    ])
  })

  test('behavior: a replayed permit is refused (nonce used)', async () => {
    const req = requirements(BASE, 'USDT', 5_000n)
    const payment = await pay(req, harness.payers(BASE)[1])
    expect((await facilitator.settle(payment, req, noRecord)).success).toBe(true)
    expect(await facilitator.settle(payment, req, noRecord)).toMatchObject({
      success: false,
      errorReason: 'permit2_invalid_nonce',
    })
  })

  test('behavior: missing Permit2 allowance, then approvePermit2 makes the payment go through', async () => {
    const req = requirements(BASE, 'USDT', 7_000n)
    const unapproved = harness.payers(BASE)[2]
    if (!unapproved) {
      throw new Error('devnet has no unapproved payer')
    }
    const payment = await pay(req, unapproved)
    expect(await facilitator.verify(payment, req)).toMatchObject({
      isValid: false,
      invalidReason: 'permit2_allowance_required',
    })
    expect(await facilitator.settle(payment, req, noRecord)).toMatchObject({
      errorReason: 'permit2_allowance_required',
    })
    const hash = await approvePermit2({
      wallet: harness.walletOf(BASE, unapproved),
      token: getAddress(req.asset),
    })
    await harness.clientOf(BASE).waitForTransactionReceipt({ hash })
    const allowance = await harness.clientOf(BASE).readContract({
      address: getAddress(req.asset),
      abi: erc20Abi,
      functionName: 'allowance',
      args: [unapproved.address, PERMIT2_ADDRESS],
    })
    expect(allowance).toBe(2n ** 256n - 1n)
    expect(await facilitator.verify(payment, req)).toMatchObject({ isValid: true })
    expect((await facilitator.settle(payment, req, noRecord)).success).toBe(true)
  })

  test('behavior: wrong spender, expired deadline, token off the allowlist, insufficient balance', async () => {
    const req = requirements(BASE, 'USDT', 1_000n)
    const payer = harness.payers(BASE)[0]
    const payment = await pay(req, payer)
    const auth = payment.payload.permit2Authorization as Record<string, unknown>
    const withAuth = (changes: Record<string, unknown>) => ({
      ...payment,
      payload: { ...payment.payload, permit2Authorization: { ...auth, ...changes } },
    })
    expect(await facilitator.verify(withAuth({ spender: PERMIT2_ADDRESS }), req)).toMatchObject({
      invalidReason: 'invalid_permit2_spender',
    })
    expect(await facilitator.verify(withAuth({ deadline: '1000' }), req)).toMatchObject({
      invalidReason: 'permit2_deadline_expired',
    })
    const foreign = { ...req, asset: '0x2222222222222222222222222222222222222222' }
    const foreignPayment = await pay(foreign, payer)
    expect((await facilitator.verify(foreignPayment, foreign)).invalidMessage).toMatch(/^asset_not_allowed/)
    const huge = requirements(BASE, 'USDT', 10n ** 30n)
    expect(await facilitator.verify(await pay(huge, payer), huge)).toMatchObject({
      invalidReason: 'permit2_insufficient_balance',
    })
  })
})
