import { type PaymentPayload, REASONS } from '@tollgate/core'
import { getAddress, type Hash, type Hex, keccak256, parseAbiItem, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeEach, describe, expect, test } from 'vitest'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import type { Permit2Authorization } from '../payloads.js'
import {
  assets,
  buildPayment,
  buildRequirements,
  createFakeChain,
  createFakeRelayer,
  MERCHANT,
  mineFakeTransaction,
  NETWORK,
  NOW_MS,
  USDT,
} from '../testing/fake-chain.js'
import { createPermit2Client } from './client.js'
import { createPermit2Facilitator } from './facilitator.js'
import { encodeProxySettle } from './permit2-calldata.js'

// settle with a recorded Permit2 transaction the node no longer knows (dropped).

const payer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const DROPPED = keccak256(toHex('dropped')) as Hash
const OTHER = keccak256(toHex('other')) as Hash
const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const invalidation = parseAbiItem(
  'event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)',
)

let chain: ReturnType<typeof createFakeChain>
let payment: PaymentPayload
let auth: Permit2Authorization

function setup() {
  const relayer = createFakeRelayer({
    receipt: 'success',
    receiptOf: (hash) => (hash === DROPPED ? 'timeout' : undefined),
    transfer: { token: USDT, from: payer.address, to: getAddress(MERCHANT), value: 10_000n },
  })
  const facilitator = createPermit2Facilitator({
    networks: { [NETWORK]: { client: chain.client, relayer: relayer.relayer } },
    assets,
    now: () => NOW_MS,
  })
  const recorded: string[] = []
  const settle = () =>
    facilitator.settle(payment, payment.accepted, {
      previousTransaction: DROPPED,
      recordBroadcast: async (tx) => {
        recorded.push(tx)
      },
    })
  return { settle, relayer, recorded }
}

/** Calldata of proxy.settle for the payment, with `nonce` in place of its own. */
function settleCalldata(nonce: bigint): Hex {
  return encodeProxySettle(
    payer.address,
    {
      token: USDT,
      amount: 10_000n,
      spender: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      nonce,
      deadline: BigInt(auth.deadline),
      to: getAddress(MERCHANT),
      validAfter: 0n,
    },
    `0x${'11'.repeat(65)}`,
  )
}

function markNonceUsed() {
  const nonce = BigInt(auth.nonce)
  chain.state.permit2Bitmaps.set(payer.address.toLowerCase(), 1n << (nonce & 0xffn))
}

beforeEach(async () => {
  chain = createFakeChain()
  chain.state.balances.set(payer.address.toLowerCase(), 1_000_000n)
  chain.state.allowances.set(payer.address.toLowerCase(), 2n ** 256n - 1n)
  const requirements = buildRequirements({ asset: USDT, extra: { assetTransferMethod: 'permit2' } })
  const client = createPermit2Client({ account: payer, now: () => NOW_MS })
  payment = buildPayment(requirements, await client.createPayload(requirements))
  auth = payment.payload.permit2Authorization as Permit2Authorization
})

describe('createPermit2Facilitator.settle with a dropped previous transaction', () => {
  test('default: an unused, valid permit is sent again through the proxy and recorded first', async () => {
    const { settle, relayer, recorded } = setup()
    const answer = await settle()
    const resent = relayer.sent[0]?.hash
    expect(answer).toEqual({ success: true, transaction: resent, network: NETWORK, payer: payer.address })
    expect(recorded).toEqual([resent])
    expect(relayer.sent[0]?.to).toBe(X402_EXACT_PERMIT2_PROXY_ADDRESS)
  })

  test('behavior: a used nonce answers the proxy call that spent it with this very permit', async () => {
    markNonceUsed()
    const value = { from: payer.address, to: MERCHANT, value: 10_000n }
    // Same payer, merchant and amount, another permit: not this payment's transaction.
    mineFakeTransaction(
      chain.state,
      { hash: keccak256(toHex('another')), to: X402_EXACT_PERMIT2_PROXY_ADDRESS, input: settleCalldata(7n) },
      [{ address: USDT, event: transfer, args: value }],
    )
    const { settle, relayer } = setup()
    expect(await settle()).toMatchObject({ errorReason: REASONS.settlementPending, transaction: DROPPED })
    mineFakeTransaction(
      chain.state,
      { hash: OTHER, to: X402_EXACT_PERMIT2_PROXY_ADDRESS, input: settleCalldata(BigInt(auth.nonce)) },
      [{ address: USDT, event: transfer, args: value }],
    )
    expect(await settle()).toEqual({
      success: true,
      transaction: OTHER,
      network: NETWORK,
      payer: payer.address,
    })
    expect(relayer.sent).toHaveLength(0)
  })

  test('behavior: a nonce the owner invalidated fails for good', async () => {
    markNonceUsed()
    const nonce = BigInt(auth.nonce)
    mineFakeTransaction(chain.state, { hash: OTHER, to: PERMIT2_ADDRESS }, [
      {
        address: PERMIT2_ADDRESS,
        event: invalidation,
        args: { owner: payer.address, word: nonce >> 8n, mask: 1n << (nonce & 0xffn) },
      },
    ])
    expect(await setup().settle()).toMatchObject({
      success: false,
      errorReason: REASONS.permit2InvalidNonce,
      errorMessage: 'the payer invalidated the Permit2 nonce',
      transaction: '',
    })
  })

  test('behavior: expired by chain time (after the deadline plus the margin) is final', async () => {
    chain.state.head.timestamp = BigInt(auth.deadline) - 7n
    expect(await setup().settle()).toMatchObject({ success: true })
    chain.state.head.timestamp = BigInt(auth.deadline) + 60n
    expect(await setup().settle()).toMatchObject({ errorReason: REASONS.settlementPending })
    chain.state.head.timestamp = BigInt(auth.deadline) + 61n
    const expired = setup()
    expect(await expired.settle()).toMatchObject({
      success: false,
      errorReason: REASONS.permit2DeadlineExpired,
      transaction: '',
    })
    expect(expired.relayer.sent).toHaveLength(0)
  })
})
