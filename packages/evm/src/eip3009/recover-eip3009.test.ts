import { type PaymentPayload, REASONS } from '@tollgate/core'
import { getAddress, type Hash, keccak256, parseAbiItem, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeEach, describe, expect, test } from 'vitest'
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
  USDC,
} from '../testing/fake-chain.js'
import { createEip3009Client } from './client.js'
import { createEip3009Facilitator } from './facilitator.js'

// settle with a recorded transaction the node no longer knows (dropped): the facilitator reads
// the authorization's state and logs on the fake chain and settles anew only when that is safe.

const payer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const DROPPED = keccak256(toHex('dropped')) as Hash
const OTHER = keccak256(toHex('other')) as Hash
const used = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)')
const canceled = parseAbiItem(
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
)
const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

let chain: ReturnType<typeof createFakeChain>
let payment: PaymentPayload
let authorization: { nonce: Hash; validBefore: string }

function setup(now = NOW_MS) {
  const relayer = createFakeRelayer({
    receipt: 'success',
    receiptOf: (hash) => (hash === DROPPED ? 'timeout' : undefined),
    transfer: { token: USDC, from: payer.address, to: getAddress(MERCHANT), value: 10_000n },
  })
  const facilitator = createEip3009Facilitator({
    networks: { [NETWORK]: { client: chain.client, relayer: relayer.relayer } },
    assets,
    now: () => now,
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

/** A mined transaction on the fake chain that used the payer's nonce, with or without our transfer. */
function mineUse(options: { transfers: boolean; event?: typeof used | typeof canceled }) {
  const events: Parameters<typeof mineFakeTransaction>[2] = [
    {
      address: USDC,
      event: options.event ?? used,
      args: { authorizer: payer.address, nonce: authorization.nonce },
    },
  ]
  if (options.transfers) {
    events.push({
      address: USDC,
      event: transfer,
      args: { from: payer.address, to: MERCHANT, value: 10_000n },
    })
  }
  mineFakeTransaction(chain.state, { hash: OTHER, to: USDC, blockNumber: 95n }, events)
  chain.state.usedNonces.add(`${payer.address.toLowerCase()}:${authorization.nonce}`)
}

beforeEach(async () => {
  chain = createFakeChain()
  chain.state.balances.set(payer.address.toLowerCase(), 1_000_000n)
  const requirements = buildRequirements()
  const client = createEip3009Client({ account: payer, now: () => NOW_MS })
  payment = buildPayment(requirements, await client.createPayload(requirements))
  authorization = payment.payload.authorization as typeof authorization
})

describe('createEip3009Facilitator.settle with a dropped previous transaction', () => {
  test('default: an unused, valid authorization is verified and sent again; the new hash is recorded first', async () => {
    const { settle, relayer, recorded } = setup()
    const answer = await settle()
    const resent = relayer.sent[0]?.hash
    expect(answer).toEqual({ success: true, transaction: resent, network: NETWORK, payer: payer.address })
    expect(recorded).toEqual([resent])
    expect(relayer.events).toEqual([`wait:${DROPPED}`, `broadcast:${resent}`, `wait:${resent}`])
    expect(relayer.sent[0]?.data.slice(0, 10)).toBe('0xe3ee160e')
  })

  test('behavior: a transaction still in the node pool is left to be mined', async () => {
    chain.state.transactions.set(DROPPED, { hash: DROPPED, blockNumber: null, to: USDC, input: '0x' })
    const { settle, relayer } = setup()
    expect(await settle()).toMatchObject({ errorReason: REASONS.settlementPending, transaction: DROPPED })
    expect(relayer.sent).toHaveLength(0)
  })

  test('behavior: an authorization used elsewhere answers that transaction, found by AuthorizationUsed', async () => {
    mineUse({ transfers: true })
    const { settle, relayer, recorded } = setup()
    expect(await settle()).toEqual({
      success: true,
      transaction: OTHER,
      network: NETWORK,
      payer: payer.address,
    })
    expect(relayer.sent).toHaveLength(0)
    expect(recorded).toEqual([])
  })

  test('behavior: a nonce spent by another authorization, or canceled, fails for good', async () => {
    mineUse({ transfers: false })
    expect(await setup().settle()).toMatchObject({
      success: false,
      errorReason: REASONS.evmNonceAlreadyUsed,
      errorMessage: "the payer's nonce was used by a different authorization",
      transaction: '',
    })
    chain = createFakeChain()
    mineUse({ transfers: false, event: canceled })
    expect(await setup().settle()).toMatchObject({
      success: false,
      errorReason: REASONS.evmNonceAlreadyUsed,
      errorMessage: 'the payer canceled the authorization',
    })
  })

  test('behavior: expired by chain time is final; near the deadline it stays pending and is not sent', async () => {
    const validBefore = BigInt(authorization.validBefore)
    chain.state.head.timestamp = validBefore + 60n
    const expired = setup()
    expect(await expired.settle()).toMatchObject({
      success: false,
      errorReason: REASONS.evmValidBefore,
      transaction: '',
    })
    expect(expired.relayer.sent).toHaveLength(0)
    // Not provably expired on chain yet, but too late to send by chain time, or by the
    // facilitator's own clock (its re-verify refuses).
    chain.state.head.timestamp = validBefore - 2n
    const close = setup()
    expect(await close.settle()).toMatchObject({
      errorReason: REASONS.settlementPending,
      errorMessage: 'too close to its deadline to send again',
      transaction: DROPPED,
    })
    chain.state.head.timestamp = validBefore - 100n
    const late = setup(Number(validBefore - 2n) * 1000)
    expect(await late.settle()).toMatchObject({
      errorReason: REASONS.settlementPending,
      errorMessage: expect.stringMatching(
        /^not sent again \(invalid_exact_evm_payload_authorization_valid_before/,
      ),
      transaction: DROPPED,
    })
    expect(close.relayer.sent.length + late.relayer.sent.length).toBe(0)
  })
})
