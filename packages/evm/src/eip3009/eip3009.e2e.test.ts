import type { PaymentPayload, PaymentRequirements, SchemeFacilitator } from '@tollgate/core'
import { type Address, erc20Abi, getAddress, parseEventLogs } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Relayer } from '../relayer/types.js'
import { type EvmHarness, startEvmHarness } from '../testing/devnet-harness.js'
import { createEip3009Client } from './client.js'
import { createEip3009Facilitator } from './facilitator.js'
import { createEip3009Server } from './server.js'

const BASE = 'eip155:84532'
const merchant: Address = '0x00000000000000000000000000000000000000Bb'.toLowerCase() as Address

let harness: EvmHarness
let relayer: Relayer
let facilitator: SchemeFacilitator
let usdc: Address
const noRecord = { recordBroadcast: async () => undefined }

beforeAll(async () => {
  harness = await startEvmHarness([BASE])
  relayer = harness.createRelayer(BASE)
  facilitator = createEip3009Facilitator({
    networks: { [BASE]: { client: harness.clientOf(BASE), relayer } },
    assets: harness.assets,
  })
  usdc = harness.assetOf(BASE, 'USDC')
})

afterAll(async () => {
  relayer?.close()
  await harness?.stop()
})

function requirements(overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  const asset = harness.assets.get(BASE, 'USDC')
  return {
    ...createEip3009Server().createRequirements({ asset, amount: 10_000n, payTo: merchant }),
    ...overrides,
  }
}

async function pay(
  req: PaymentRequirements = requirements(),
  account = harness.payers(BASE)[0],
  now?: () => number,
): Promise<PaymentPayload> {
  if (!account) {
    throw new Error('no payer')
  }
  const client = createEip3009Client({ account, ...(now ? { now } : {}) })
  return { x402Version: 2, accepted: req, payload: await client.createPayload(req) }
}

describe('eip3009 on the devnet', () => {
  test('default: sign, verify, settle; balances move and the receipt has the Transfer log', async () => {
    const payment = await pay()
    const payer = getAddress((payment.payload.authorization as { from: string }).from)
    const before = await harness.balanceOf(BASE, usdc, merchant)
    const payerBefore = await harness.balanceOf(BASE, usdc, payer)
    expect(await facilitator.verify(payment, payment.accepted)).toEqual({ isValid: true, payer })
    const recorded: string[] = []
    const settled = await facilitator.settle(payment, payment.accepted, {
      recordBroadcast: async (tx) => void recorded.push(tx),
    })
    expect(settled).toMatchObject({ success: true, network: BASE, payer })
    expect(recorded).toEqual([settled.transaction])
    expect(await harness.balanceOf(BASE, usdc, merchant)).toBe(before + 10_000n)
    expect(await harness.balanceOf(BASE, usdc, payer)).toBe(payerBefore - 10_000n)
    const receipt = await harness
      .clientOf(BASE)
      .getTransactionReceipt({ hash: settled.transaction as `0x${string}` })
    const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' })
    expect(transfers).toHaveLength(1)
    expect(transfers[0]?.args).toEqual({ from: payer, to: getAddress(merchant), value: 10_000n })
  })

  test('behavior: a replayed authorization is refused as nonce used; a re-settle with the stored tx re-awaits it', async () => {
    const payment = await pay()
    const first = await facilitator.settle(payment, payment.accepted, noRecord)
    expect(first.success).toBe(true)
    expect(await facilitator.settle(payment, payment.accepted, noRecord)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
    })
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    })
    expect(
      await facilitator.settle(payment, payment.accepted, {
        ...noRecord,
        previousTransaction: first.transaction,
      }),
    ).toEqual(first)
  })

  test('behavior: concurrent verifies that together overdraw the payer are each judged alone', async () => {
    // Funds for one payment: in one shared eth_call the second simulated transfer would fail,
    // but each payment alone is payable, so each must verify (and a third, unfunded one not).
    const account = privateKeyToAccount(generatePrivateKey())
    await harness.devnet.fund({ network: BASE, address: account.address, asset: 'USDC', amount: 10_000n })
    const payments = await Promise.all([pay(requirements(), account), pay(requirements(), account)])
    const tooMuch = await pay(requirements({ amount: '10001' }), account)
    const answers = await Promise.all(
      [...payments, tooMuch].map((payment) => facilitator.verify(payment, payment.accepted)),
    )
    expect(answers.map((a) => a.isValid)).toEqual([true, true, false])
    expect(answers[2]?.invalidReason).toBe('invalid_exact_evm_insufficient_balance')
  })

  test('behavior: a payer account that runs code (EIP-7702) is judged by the token, not by its ECDSA signature', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await harness.devnet.fund({ network: BASE, address: account.address, asset: 'USDC', amount: 1_000_000n })
    const payment = await pay(requirements(), account)
    // Delegate the key's account to code with no isValidSignature: the token (OpenZeppelin's
    // SignatureChecker) asks any signer with code for ERC-1271, so this payment cannot settle.
    const client = harness.clientOf(BASE)
    await client.request({
      method: 'anvil_setCode',
      params: [account.address, `0xef0100${usdc.slice(2)}`],
    } as never)
    const relayers = relayer.getAddresses()
    const sentBefore = await Promise.all(relayers.map((address) => client.getTransactionCount({ address })))
    expect(await facilitator.settle(payment, payment.accepted, noRecord)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_transaction_simulation_failed',
      transaction: '',
    })
    const sentAfter = await Promise.all(relayers.map((address) => client.getTransactionCount({ address })))
    expect(sentAfter).toEqual(sentBefore)
  })

  test('behavior: every invalid case gives its documented reason', async () => {
    const nowMs = Date.now()
    const base = requirements()
    const cases: Array<[string, () => Promise<[PaymentPayload, PaymentRequirements]>, string]> = [
      [
        'wrong recipient',
        async () => {
          const p = await pay(requirements({ payTo: '0x00000000000000000000000000000000000000cc' }))
          return [{ ...p, accepted: base }, base]
        },
        'invalid_exact_evm_recipient_mismatch',
      ],
      [
        'accepted for another payTo',
        async () => [await pay(requirements({ payTo: '0x00000000000000000000000000000000000000cc' })), base],
        'invalid_payment_requirements',
      ],
      [
        'recipient in the authorization',
        async () => {
          const p = await pay()
          const authorization = {
            ...(p.payload.authorization as object),
            to: '0x00000000000000000000000000000000000000cc',
          }
          return [{ ...p, payload: { ...p.payload, authorization } }, base]
        },
        'invalid_exact_evm_recipient_mismatch',
      ],
      [
        'amount mismatch',
        async () => [await pay(), requirements({ amount: '20000' })],
        'invalid_payment_requirements',
      ],
      [
        'value mismatch',
        async () => {
          const req = requirements({ amount: '20000' })
          const p = await pay()
          return [{ ...p, accepted: req }, req]
        },
        'invalid_exact_evm_payload_authorization_value_mismatch',
      ],
      [
        'expired',
        async () => {
          const p = await pay(requirements(), undefined, () => nowMs - 600_000)
          return [p, p.accepted]
        },
        'invalid_exact_evm_payload_authorization_valid_before',
      ],
      [
        'validBefore too far out',
        async () => {
          const p = await pay(requirements(), undefined, () => nowMs + 3_600_000)
          return [p, p.accepted]
        },
        'invalid_exact_evm_payload_authorization_valid_before',
      ],
      [
        'not yet valid',
        async () => {
          const p = await pay()
          const authorization = {
            ...(p.payload.authorization as object),
            validAfter: String(Math.floor(nowMs / 1000) + 120),
          }
          return [{ ...p, payload: { ...p.payload, authorization } }, p.accepted]
        },
        'invalid_exact_evm_payload_authorization_valid_after',
      ],
      [
        'bad signature',
        async () => {
          const p = await pay()
          return [{ ...p, payload: { ...p.payload, signature: `0x${'12'.repeat(65)}` } }, p.accepted]
        },
        'invalid_exact_evm_signature',
      ],
      [
        'signature by another key',
        async () => {
          const p = await pay()
          const other = await pay(requirements(), privateKeyToAccount(generatePrivateKey()))
          const authorization = {
            ...(other.payload.authorization as object),
            from: (p.payload.authorization as { from: string }).from,
          }
          return [{ ...p, payload: { signature: other.payload.signature, authorization } }, p.accepted]
        },
        'invalid_exact_evm_signature',
      ],
      [
        'insufficient balance',
        async () => {
          const p = await pay(requirements(), privateKeyToAccount(generatePrivateKey()))
          return [p, p.accepted]
        },
        'invalid_exact_evm_insufficient_balance',
      ],
      [
        'asset not allowlisted',
        async () => {
          const req = requirements({ asset: '0x1111111111111111111111111111111111111111' })
          const p = await pay(req)
          return [p, req]
        },
        'invalid_payment_requirements',
      ],
      [
        'network mismatch',
        async () => {
          const p = await pay()
          return [p, { ...p.accepted, network: 'eip155:421614' }]
        },
        'invalid_exact_evm_network_mismatch',
      ],
      [
        'malformed payload',
        async () => {
          const p = await pay()
          return [{ ...p, payload: { signature: 'nope' } }, p.accepted]
        },
        'invalid_payload',
      ],
    ]
    for (const [name, build, reason] of cases) {
      const [payment, req] = await build()
      const answer = await facilitator.verify(payment, req)
      expect({ name, reason: answer.invalidReason }).toEqual({ name, reason })
      const settled = await facilitator.settle(payment, req, noRecord)
      expect({ name, reason: settled.errorReason, success: settled.success }).toEqual({
        name,
        reason,
        success: false,
      })
    }
  })

  test('behavior: a token that reverts (blacklisted payer) fails simulation; with no simulation the receipt reverts', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await harness.devnet.fund({ network: BASE, address: account.address, asset: 'USDC', amount: 1_000_000n })
    await harness.ownerCall(BASE, usdc, 'blacklist', account.address)
    const payment = await pay(requirements(), account)
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_transaction_simulation_failed',
      invalidMessage: 'Blacklistable: account is blacklisted',
    })
    const settled = await facilitator.settle(payment, payment.accepted, noRecord)
    expect(settled).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_transaction_failed' })
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    await harness.ownerCall(BASE, usdc, 'unBlacklist', account.address)
  })
})
