import type { PaymentRequirements } from '@tollgate/core'
import { getAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeEach, describe, expect, test } from 'vitest'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import {
  assets,
  buildPayment,
  buildRequirements,
  createFakeChain,
  createFakeRelayer,
  type FakeRelayerBehavior,
  MERCHANT,
  NETWORK,
  NOW_MS,
  USDT,
} from '../testing/fake-chain.js'
import { createPermit2Client } from './client.js'
import { createPermit2Facilitator } from './facilitator.js'

const payer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const stranger = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a')
const client = createPermit2Client({ account: payer, now: () => NOW_MS })
const permit2Requirements = (overrides: Partial<PaymentRequirements> = {}) =>
  buildRequirements({ asset: USDT, extra: { assetTransferMethod: 'permit2' }, ...overrides })

let chain: ReturnType<typeof createFakeChain>

function setup(behavior?: FakeRelayerBehavior) {
  const relayer = createFakeRelayer(
    behavior ?? {
      receipt: 'success',
      transfer: { token: USDT, from: payer.address, to: getAddress(MERCHANT), value: 10_000n },
    },
  )
  const facilitator = createPermit2Facilitator({
    networks: { [NETWORK]: { client: chain.client, relayer: relayer.relayer } },
    assets,
    now: () => NOW_MS,
  })
  return { facilitator, relayer }
}

async function signed(requirements = permit2Requirements(), signer = client) {
  return buildPayment(requirements, await signer.createPayload(requirements))
}

async function tampered(change: (auth: Record<string, unknown>) => void) {
  const payment = await signed()
  const auth = structuredClone(payment.payload.permit2Authorization) as Record<string, unknown>
  change(auth)
  return buildPayment(payment.accepted, { ...payment.payload, permit2Authorization: auth })
}

beforeEach(() => {
  chain = createFakeChain()
  chain.state.balances.set(payer.address.toLowerCase(), 1_000_000n)
  chain.state.allowances.set(payer.address.toLowerCase(), 2n ** 256n - 1n)
})

describe('createPermit2Client', () => {
  test('default: the reference payload shape with the exact proxy as spender', async () => {
    const payload = await client.createPayload(permit2Requirements())
    expect(payload).toMatchObject({
      permit2Authorization: {
        from: payer.address,
        permitted: { token: USDT, amount: '10000' },
        spender: X402_EXACT_PERMIT2_PROXY_ADDRESS,
        deadline: String(NOW_MS / 1000 + 300),
        witness: { to: getAddress(MERCHANT), validAfter: '0' },
      },
    })
    expect(String((payload.permit2Authorization as { nonce: string }).nonce)).toMatch(/^\d+$/)
    expect(client.canPay(permit2Requirements())).toBe(true)
    expect(client.canPay(buildRequirements())).toBe(false)
  })
})

describe('createPermit2Facilitator.verify', () => {
  test('default: valid with one eth_call', async () => {
    const { facilitator } = setup()
    const payment = await signed()
    expect(await facilitator.verify(payment, payment.accepted)).toEqual({
      isValid: true,
      payer: payer.address,
    })
    expect(chain.stats.calls).toBe(1)
  })

  test.each([
    [
      'wrong spender',
      (a: Record<string, unknown>) => {
        a.spender = PERMIT2_ADDRESS
      },
      'invalid_permit2_spender',
    ],
    [
      'wrong recipient',
      (a: Record<string, unknown>) => {
        a.witness = { to: '0x00000000000000000000000000000000000000cc', validAfter: '0' }
      },
      'invalid_permit2_recipient_mismatch',
    ],
    [
      'wrong token',
      (a: Record<string, unknown>) => {
        a.permitted = { token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '10000' }
      },
      'permit2_token_mismatch',
    ],
    [
      'amount mismatch',
      (a: Record<string, unknown>) => {
        a.permitted = { token: USDT, amount: '1' }
      },
      'permit2_amount_mismatch',
    ],
    [
      'expired',
      (a: Record<string, unknown>) => {
        a.deadline = String(NOW_MS / 1000 - 10)
      },
      'permit2_deadline_expired',
    ],
    [
      'not yet valid',
      (a: Record<string, unknown>) => {
        a.witness = { to: getAddress(MERCHANT), validAfter: String(NOW_MS / 1000 + 100) }
      },
      'permit2_not_yet_valid',
    ],
    [
      'deadline too far out',
      (a: Record<string, unknown>) => {
        a.deadline = String(NOW_MS / 1000 + 86_400)
      },
      'permit2_deadline_expired',
    ],
    [
      'tampered nonce',
      (a: Record<string, unknown>) => {
        a.nonce = '5'
      },
      'invalid_permit2_signature',
    ],
  ])('behavior: %s', async (_, change, reason) => {
    const { facilitator } = setup()
    const payment = await tampered(change)
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      isValid: false,
      invalidReason: reason,
    })
  })

  test('behavior: a signature by another key', async () => {
    const { facilitator } = setup()
    const other = await signed(
      permit2Requirements(),
      createPermit2Client({ account: stranger, now: () => NOW_MS }),
    )
    const mine = await signed()
    const forged = buildPayment(mine.accepted, { ...mine.payload, signature: other.payload.signature })
    expect(await facilitator.verify(forged, forged.accepted)).toMatchObject({
      invalidReason: 'invalid_permit2_signature',
    })
  })

  test('behavior: allowance, balance, used nonce, proxy custom errors', async () => {
    const { facilitator } = setup()
    const payment = await signed()
    chain.state.allowances.set(payer.address.toLowerCase(), 0n)
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'permit2_allowance_required',
    })
    chain.state.allowances.set(payer.address.toLowerCase(), 10_000n)
    chain.state.balances.set(payer.address.toLowerCase(), 1n)
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'permit2_insufficient_balance',
    })
    chain.state.balances.set(payer.address.toLowerCase(), 10_000n)
    const nonce = BigInt((payment.payload.permit2Authorization as { nonce: string }).nonce)
    chain.state.permit2Bitmaps.set(payer.address.toLowerCase(), 1n << (nonce & 0xffn))
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'permit2_invalid_nonce',
    })
    chain.state.permit2Bitmaps.clear()
    chain.state.revert = '0x756688fe'
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'permit2_invalid_nonce',
    })
    chain.state.revert = 'TRANSFER_FROM_FAILED'
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'permit2_insufficient_balance',
    })
    chain.state.revert = 'something else'
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'permit2_simulation_failed',
      invalidMessage: 'something else',
    })
    chain.state.code.delete(X402_EXACT_PERMIT2_PROXY_ADDRESS.toLowerCase())
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'permit2_proxy_not_deployed',
    })
  })

  test('behavior: an asset only allowlisted for eip3009 elsewhere is refused', async () => {
    const { facilitator } = setup()
    const requirements = permit2Requirements({ asset: '0x1111111111111111111111111111111111111111' })
    const answer = await facilitator.verify(await signed(requirements), requirements)
    expect(answer.invalidMessage).toMatch(/^asset_not_allowed/)
  })
})

describe('createPermit2Facilitator.settle', () => {
  test('default: sends proxy.settle and returns the transaction', async () => {
    const { facilitator, relayer } = setup()
    const payment = await signed()
    const recorded: string[] = []
    const answer = await facilitator.settle(payment, payment.accepted, {
      recordBroadcast: async (tx) => {
        recorded.push(tx)
      },
    })
    expect(answer).toEqual({
      success: true,
      transaction: relayer.sent[0]?.hash,
      network: NETWORK,
      payer: payer.address,
    })
    expect(recorded).toEqual([relayer.sent[0]?.hash])
    expect(relayer.sent[0]).toMatchObject({ to: X402_EXACT_PERMIT2_PROXY_ADDRESS, gas: 250_000n })
  })

  test('behavior: timeout → settlement_pending; custom error on send → permit2 reason', async () => {
    const payment = await signed()
    const ctx = { recordBroadcast: async () => undefined }
    const slow = setup({ receipt: 'timeout' })
    expect(await slow.facilitator.settle(payment, payment.accepted, ctx)).toMatchObject({
      errorReason: 'settlement_pending',
      transaction: slow.relayer.sent[0]?.hash,
    })
    const failing = setup({ receipt: 'success', sendError: new Error('execution reverted: InvalidNonce()') })
    expect(await failing.facilitator.settle(payment, payment.accepted, ctx)).toMatchObject({
      success: false,
      errorReason: 'permit2_invalid_nonce',
    })
  })

  test('getSettlementKey: chain, owner and nonce', async () => {
    const { facilitator } = setup()
    const payment = await signed()
    const { nonce } = payment.payload.permit2Authorization as { nonce: string }
    expect(facilitator.getSettlementKey(payment, payment.accepted)).toBe(
      `permit2:84532:${payer.address.toLowerCase()}:${nonce}`,
    )
    expect(facilitator.canHandle(payment, payment.accepted)).toBe(true)
  })
})
