import type { PaymentRequirements } from '@tollgate/core'
import { getAddress, type Hex, serializeErc6492Signature } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeEach, describe, expect, test } from 'vitest'
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
  USDC,
  USDT,
} from '../testing/fake-chain.js'
import { createEip3009Client } from './client.js'
import { createEip3009Facilitator } from './facilitator.js'

const payer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const stranger = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a')
const client = createEip3009Client({ account: payer, now: () => NOW_MS })

let chain: ReturnType<typeof createFakeChain>

function setup(behavior?: FakeRelayerBehavior) {
  const relayer = createFakeRelayer(
    behavior ?? {
      receipt: 'success',
      transfer: { token: USDC, from: payer.address, to: getAddress(MERCHANT), value: 10_000n },
    },
  )
  const facilitator = createEip3009Facilitator({
    networks: { [NETWORK]: { client: chain.client, relayer: relayer.relayer } },
    assets,
    now: () => NOW_MS,
  })
  return { facilitator, relayer }
}

async function signed(requirements: PaymentRequirements = buildRequirements(), signer = client) {
  return buildPayment(requirements, await signer.createPayload(requirements))
}

beforeEach(() => {
  chain = createFakeChain()
  chain.state.balances.set(payer.address.toLowerCase(), 1_000_000n)
})

describe('createEip3009Facilitator.verify', () => {
  test('default: a payload signed by our client verifies with one eth_call and no getCode of the payer', async () => {
    const { facilitator } = setup()
    const payment = await signed()
    expect(await facilitator.verify(payment, payment.accepted)).toEqual({
      isValid: true,
      payer: payer.address,
    })
    expect(await facilitator.verify(payment, payment.accepted)).toEqual({
      isValid: true,
      payer: payer.address,
    })
    // The only getCode is the batcher's one-time check that Multicall3 exists.
    expect(chain.stats).toEqual({ calls: 2, codeLookups: 1 })
  })

  test('behavior: concurrent verifies of different payers share one aggregate3 eth_call', async () => {
    const { facilitator } = setup()
    const payers = Array.from({ length: 20 }, () => privateKeyToAccount(generatePrivateKey()))
    for (const account of payers) {
      chain.state.balances.set(account.address.toLowerCase(), 10_000n)
    }
    const payments = await Promise.all(
      payers.map((account) =>
        signed(buildRequirements(), createEip3009Client({ account, now: () => NOW_MS })),
      ),
    )
    const answers = await Promise.all(payments.map((p) => facilitator.verify(p, p.accepted)))
    expect(answers.every((a) => a.isValid)).toBe(true)
    expect(chain.stats.calls).toBe(1)
  })

  test('behavior: concurrent valid verifies of one payer share one eth_call', async () => {
    const { facilitator } = setup()
    const payments = await Promise.all(Array.from({ length: 5 }, () => signed()))
    const answers = await Promise.all(payments.map((p) => facilitator.verify(p, p.accepted)))
    expect(answers.every((a) => a.isValid)).toBe(true)
    expect(chain.stats.calls).toBe(1)
  })

  const invalidCases: Array<[string, (r: PaymentRequirements) => PaymentRequirements, string]> = [
    ['amount mismatch', (r) => ({ ...r, amount: '10001' }), 'invalid_payment_requirements'],
    [
      'payTo mismatch',
      (r) => ({ ...r, payTo: '0x00000000000000000000000000000000000000cc' }),
      'invalid_payment_requirements',
    ],
    ['maxTimeoutSeconds mismatch', (r) => ({ ...r, maxTimeoutSeconds: 60 }), 'invalid_payment_requirements'],
    [
      'extra not a superset',
      (r) => ({ ...r, extra: { ...r.extra, memo: 'x' } }),
      'invalid_payment_requirements',
    ],
    ['network mismatch', (r) => ({ ...r, network: 'eip155:421614' }), 'invalid_exact_evm_network_mismatch'],
    ['scheme', (r) => ({ ...r, scheme: 'upto' }), 'invalid_exact_evm_scheme'],
  ]
  test.each(invalidCases)(
    'behavior: requirements differing from accepted (%s)',
    async (_, change, reason) => {
      const { facilitator } = setup()
      const payment = await signed()
      const answer = await facilitator.verify(payment, change(payment.accepted))
      expect(answer).toMatchObject({ isValid: false, invalidReason: reason })
      expect(chain.stats.calls).toBe(0)
    },
  )

  test('behavior: zero amount is rejected', async () => {
    const { facilitator } = setup()
    const payment = await signed(buildRequirements({ amount: '0' }))
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_payment_requirements',
      invalidMessage: 'amount must be greater than zero',
    })
  })

  test('behavior: an asset off the allowlist is rejected before any RPC', async () => {
    const { facilitator } = setup()
    const requirements = buildRequirements({ asset: '0x1111111111111111111111111111111111111111' })
    const payment = await signed(requirements)
    const answer = await facilitator.verify(payment, requirements)
    expect(answer).toMatchObject({ isValid: false, invalidReason: 'invalid_payment_requirements' })
    expect(answer.invalidMessage).toMatch(/^asset_not_allowed/)
    expect(chain.stats.calls).toBe(0)
  })

  test('behavior: an allowlisted asset without EIP-3009 is not payable with eip3009', async () => {
    const { facilitator } = setup()
    const requirements = buildRequirements({ asset: USDT })
    const answer = await facilitator.verify(await signed(requirements), requirements)
    expect(answer.invalidMessage).toMatch(/not payable with eip3009/)
  })

  test('behavior: missing or wrong EIP-712 domain', async () => {
    const { facilitator } = setup()
    const noDomain = buildRequirements({ extra: {} })
    const withDomain = await signed()
    expect(await facilitator.verify(buildPayment(noDomain, withDomain.payload), noDomain)).toMatchObject({
      invalidReason: 'invalid_exact_evm_missing_eip712_domain',
    })
    const wrongName = buildRequirements({ extra: { name: 'USD Coin', version: '2' } })
    expect(await facilitator.verify(buildPayment(wrongName, withDomain.payload), wrongName)).toMatchObject({
      invalidReason: 'invalid_exact_evm_token_name_mismatch',
    })
    const wrongVersion = buildRequirements({ extra: { name: 'USDC', version: '1' } })
    expect(
      await facilitator.verify(buildPayment(wrongVersion, withDomain.payload), wrongVersion),
    ).toMatchObject({
      invalidReason: 'invalid_exact_evm_token_version_mismatch',
    })
  })

  const tamper = async (change: (authorization: Record<string, string>) => void) => {
    const payment = await signed()
    const authorization = { ...(payment.payload.authorization as Record<string, string>) }
    change(authorization)
    return buildPayment(payment.accepted, { ...payment.payload, authorization })
  }

  test.each([
    [
      'wrong recipient',
      (a: Record<string, string>) => {
        a.to = '0x00000000000000000000000000000000000000cc'
      },
      'invalid_exact_evm_recipient_mismatch',
    ],
    [
      'value mismatch',
      (a: Record<string, string>) => {
        a.value = '9999'
      },
      'invalid_exact_evm_payload_authorization_value_mismatch',
    ],
    [
      'expired',
      (a: Record<string, string>) => {
        a.validBefore = String(NOW_MS / 1000 - 1)
      },
      'invalid_exact_evm_payload_authorization_valid_before',
    ],
    [
      'expiring within 6 s',
      (a: Record<string, string>) => {
        a.validBefore = String(NOW_MS / 1000 + 5)
      },
      'invalid_exact_evm_payload_authorization_valid_before',
    ],
    [
      'not yet valid',
      (a: Record<string, string>) => {
        a.validAfter = String(NOW_MS / 1000 + 60)
      },
      'invalid_exact_evm_payload_authorization_valid_after',
    ],
    [
      'validBefore too far out',
      (a: Record<string, string>) => {
        a.validBefore = String(NOW_MS / 1000 + 3600)
      },
      'invalid_exact_evm_payload_authorization_valid_before',
    ],
    [
      'tampered nonce (bad signature)',
      (a: Record<string, string>) => {
        a.nonce = `0x${'22'.repeat(32)}`
      },
      'invalid_exact_evm_signature',
    ],
  ])('behavior: %s', async (_, change, reason) => {
    const { facilitator } = setup()
    const payment = await tamper(change)
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      isValid: false,
      invalidReason: reason,
    })
  })

  test('behavior: a signature by another key is invalid (one cached getCode, no eth_call)', async () => {
    const { facilitator } = setup()
    const other = await signed(
      buildRequirements(),
      createEip3009Client({ account: stranger, now: () => NOW_MS }),
    )
    const payment = await tamper((a) => {
      a.nonce = (other.payload.authorization as Record<string, string>).nonce as string
    })
    const forged = buildPayment(payment.accepted, { ...payment.payload, signature: other.payload.signature })
    expect(await facilitator.verify(forged, forged.accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_signature',
      payer: payer.address,
    })
    await facilitator.verify(forged, forged.accepted)
    expect(chain.stats).toEqual({ calls: 0, codeLookups: 1 })
  })

  test('behavior: a used nonce, short balance, missing EIP-3009, undeployed asset and a revert', async () => {
    const { facilitator } = setup()
    const payment = await signed()
    const { from, nonce } = payment.payload.authorization as Record<string, string>
    chain.state.usedNonces.add(`${from?.toLowerCase()}:${nonce}`)
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    })
    chain.state.usedNonces.clear()
    chain.state.balances.set(payer.address.toLowerCase(), 9_999n)
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'invalid_exact_evm_insufficient_balance',
    })
    chain.state.balances.set(payer.address.toLowerCase(), 10_000n)
    chain.state.revert = 'Blacklistable: account is blacklisted'
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'invalid_exact_evm_transaction_simulation_failed',
      invalidMessage: 'Blacklistable: account is blacklisted',
    })
    expect(await facilitator.verify(payment, payment.accepted, { simulate: false })).toMatchObject({
      isValid: true,
    })
    chain.state.noEip3009 = true
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'invalid_exact_evm_eip3009_not_supported',
    })
    chain.state.code.delete(USDC.toLowerCase())
    expect(await facilitator.verify(payment, payment.accepted)).toMatchObject({
      invalidReason: 'asset_not_deployed_contract',
    })
  })

  test('behavior: contract wallets go through ERC-1271; ERC-6492 needs an allowlisted factory', async () => {
    const { facilitator } = setup()
    const payment = await tamper(() => undefined)
    const wallet = (payment.payload.authorization as Record<string, string>).from as string
    const garbage: Hex = `0x${'11'.repeat(65)}`
    chain.state.code.set(wallet.toLowerCase(), '0x01')
    const contractSigned = buildPayment(payment.accepted, { ...payment.payload, signature: garbage })
    expect(await facilitator.verify(contractSigned, payment.accepted)).toEqual({
      isValid: true,
      payer: payer.address,
    })
    chain.state.walletAccepts = false
    expect(await facilitator.verify(contractSigned, payment.accepted)).toMatchObject({
      invalidReason: 'invalid_exact_evm_signature',
    })
    chain = createFakeChain()
    const wrapped = serializeErc6492Signature({
      address: '0x00000000000000000000000000000000000000fa',
      data: '0xabcdef',
      signature: garbage,
    })
    const counterfactual = buildPayment(payment.accepted, { ...payment.payload, signature: wrapped })
    expect(await setup().facilitator.verify(counterfactual, payment.accepted)).toMatchObject({
      isValid: false,
      invalidReason: 'eip6492_factory_not_allowed',
    })
  })

  test('behavior: malformed payloads', async () => {
    const { facilitator } = setup()
    const requirements = buildRequirements()
    expect(await facilitator.verify(buildPayment(requirements, { foo: 1 }), requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_payload',
    })
  })
})

describe('createEip3009Facilitator.settle', () => {
  test('default: records the hash before waiting and returns the transaction', async () => {
    const { facilitator, relayer } = setup()
    const payment = await signed()
    const recorded: string[] = []
    const answer = await facilitator.settle(payment, payment.accepted, {
      recordBroadcast: async (tx) => {
        recorded.push(tx)
        relayer.events.push(`record:${tx}`)
      },
    })
    const hash = relayer.sent[0]?.hash
    expect(answer).toEqual({ success: true, transaction: hash, network: NETWORK, payer: payer.address })
    expect(relayer.events).toEqual([`record:${hash}`, `broadcast:${hash}`, `wait:${hash}`])
    expect(relayer.sent[0]).toMatchObject({ to: getAddress(USDC), gas: 150_000n })
    expect(relayer.sent[0]?.data.slice(0, 10)).toBe('0xe3ee160e')
  })

  test('behavior: settle uses the checks prepareSettle made for this very payment, not for another', async () => {
    const { facilitator, relayer } = setup()
    const payment = await signed()
    const prepared = await facilitator.prepareSettle?.(payment, payment.accepted)
    expect(chain.stats.calls).toBe(1)
    const noRecord = { recordBroadcast: async () => undefined }
    expect(await facilitator.settle(payment, payment.accepted, { ...noRecord, prepared })).toMatchObject({
      success: true,
    })
    expect(chain.stats.calls).toBe(1)
    // Checks of one payment never stand in for another's: that settle verifies for itself.
    const other = await signed()
    const stale = await facilitator.prepareSettle?.(payment, payment.accepted)
    await facilitator.settle(other, other.accepted, { ...noRecord, prepared: stale })
    expect(chain.stats.calls).toBe(3)
    expect(relayer.sent).toHaveLength(2)
  })

  test('behavior: a previous transaction is only re-awaited', async () => {
    const { facilitator, relayer } = setup()
    const payment = await signed()
    const previousTransaction = `0x${'aa'.repeat(32)}`
    const answer = await facilitator.settle(payment, payment.accepted, {
      previousTransaction,
      recordBroadcast: async () => undefined,
    })
    expect(answer).toMatchObject({ success: true, transaction: previousTransaction })
    expect(relayer.sent).toHaveLength(0)
  })

  test('behavior: a receipt timeout is settlement_pending with the hash', async () => {
    const { facilitator, relayer } = setup({ receipt: 'timeout' })
    const payment = await signed()
    const answer = await facilitator.settle(payment, payment.accepted, {
      recordBroadcast: async () => undefined,
    })
    expect(answer).toMatchObject({
      success: false,
      errorReason: 'settlement_pending',
      transaction: relayer.sent[0]?.hash,
    })
  })

  test('behavior: reverted receipt, missing Transfer log, invalid payment and send failure', async () => {
    const payment = await signed()
    const ctx = { recordBroadcast: async () => undefined }
    const reverted = setup({ receipt: 'reverted' })
    expect(await reverted.facilitator.settle(payment, payment.accepted, ctx)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_transaction_failed',
    })
    const noLog = setup({ receipt: 'no-transfer-log' })
    expect(await noLog.facilitator.settle(payment, payment.accepted, ctx)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_transfer_event_mismatch',
    })
    const failing = setup({ receipt: 'success', sendError: new Error('relayer could not send: boom') })
    expect(await failing.facilitator.settle(payment, payment.accepted, ctx)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_transaction_failed',
      transaction: '',
    })
    const { from, nonce } = payment.payload.authorization as Record<string, string>
    chain.state.usedNonces.add(`${from?.toLowerCase()}:${nonce}`)
    const used = setup()
    expect(await used.facilitator.settle(payment, payment.accepted, ctx)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
    })
    expect(used.relayer.sent).toHaveLength(0)
  })

  test('getSettlementKey: chain, asset, payer and nonce', async () => {
    const { facilitator } = setup()
    const payment = await signed()
    const { nonce } = payment.payload.authorization as Record<string, string>
    expect(facilitator.getSettlementKey(payment, payment.accepted)).toBe(
      `eip3009:84532:${USDC.toLowerCase()}:${payer.address.toLowerCase()}:${nonce}`,
    )
    expect(facilitator.getSettlementKey(buildPayment(payment.accepted, {}), payment.accepted)).toBeUndefined()
    expect(facilitator.canHandle(payment, payment.accepted)).toBe(true)
    expect(facilitator.getSigners(NETWORK)).toHaveLength(1)
  })
})
