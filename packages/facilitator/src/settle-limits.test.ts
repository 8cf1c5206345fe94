import { REASONS } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { createFacilitator } from './create-facilitator.js'
import { createFacilitatorApp } from './create-facilitator-app.js'
import { NO_SETTLE_LIMITS, type SettleLimits, toMinAmountKey } from './create-settle-guard.js'
import { parseFacilitatorConfig, resolveSettleLimits } from './facilitator-config.js'
import { buildFakeRequest, createFakeScheme, type FakeConfirmation } from './testing/create-fake-scheme.js'

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const NETWORK = 'eip155:84532'
const PAYER = '0x00000000000000000000000000000000000000bb'

const limits = (overrides: Partial<SettleLimits> = {}): SettleLimits => ({
  ...NO_SETTLE_LIMITS,
  minAmounts: new Map([[toMinAmountKey(NETWORK, USDC), 1000n]]),
  perPayer: { settles: 3, windowMs: 60_000 },
  perCaller: { settles: 5, windowMs: 60_000 },
  revertCooldownMs: 600_000,
  ...overrides,
})

// A 1000-unit payment (the floor) from `from` with its own nonce.
const payment = (nonce: number, from = PAYER, amount = '1000') =>
  buildFakeRequest({
    requirements: { amount },
    payload: { from, nonce: `0x${nonce.toString(16)}`, value: amount },
  })

describe('settle limits', () => {
  test('a dust-settle loop is refused after the per-payer limit, at settle and at verify', async () => {
    const scheme = createFakeScheme()
    const facilitator = createFacilitator({ schemes: [scheme], limits: limits() })
    const answers = []
    for (let nonce = 1; nonce <= 6; nonce += 1) {
      answers.push(await facilitator.settle(payment(nonce), { caller: 'merchant-a' }))
    }
    expect(answers.map((a) => a.success)).toEqual([true, true, true, false, false, false])
    expect(answers[3]).toMatchObject({ errorReason: REASONS.rateLimited, transaction: '' })
    expect(answers[3]?.errorReason).toBe('tollgate_rate_limited')
    expect(scheme.broadcasts).toHaveLength(3)
    expect(await facilitator.verify(payment(7))).toMatchObject({
      isValid: false,
      invalidReason: 'tollgate_rate_limited',
    })
    // The retry of a payment already counted is neither counted nor refused.
    expect(await facilitator.settle(payment(1), { caller: 'merchant-a' })).toMatchObject({
      success: false,
      errorReason: REASONS.duplicateSettlement,
    })
  })

  test('the per-caller limit holds across payers; other callers are unaffected', async () => {
    const scheme = createFakeScheme()
    const facilitator = createFacilitator({ schemes: [scheme], limits: limits() })
    const payers = Array.from({ length: 7 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`)
    const answers = []
    for (const [i, from] of payers.entries()) {
      answers.push(await facilitator.settle(payment(i + 1, from), { caller: 'token-1' }))
    }
    expect(answers.filter((a) => a.success)).toHaveLength(5)
    expect(answers[5]?.errorReason).toBe('tollgate_rate_limited')
    expect(await facilitator.settle(payment(99, payers[6]), { caller: 'token-2' })).toMatchObject({
      success: true,
    })
  })

  test('a settle that sent nothing does not count', async () => {
    const scheme = createFakeScheme()
    const facilitator = createFacilitator({ schemes: [scheme], limits: limits() })
    for (let nonce = 1; nonce <= 5; nonce += 1) {
      // A wrong value fails the scheme's check before any broadcast.
      const bad = payment(nonce)
      bad.paymentPayload.payload.value = '1'
      expect((await facilitator.settle(bad)).success).toBe(false)
    }
    expect((await facilitator.settle(payment(10))).success).toBe(true)
  })

  test('an amount under the floor is refused at verify and at settle, before the scheme', async () => {
    const scheme = createFakeScheme()
    const facilitator = createFacilitator({ schemes: [scheme], limits: limits() })
    const dust = payment(1, PAYER, '999')
    expect(await facilitator.verify(dust)).toMatchObject({
      isValid: false,
      invalidReason: 'tollgate_amount_below_minimum',
      invalidMessage: expect.stringContaining('1000'),
    })
    expect(await facilitator.settle(dust)).toMatchObject({
      success: false,
      errorReason: 'tollgate_amount_below_minimum',
      transaction: '',
    })
    expect(scheme.broadcasts).toHaveLength(0)
    expect((await facilitator.settle(payment(2))).success).toBe(true)
  })

  test('a payer whose settle reverted is cooled down at verify and settle, then admitted again', async () => {
    let clock = 1_000_000
    const outcomes: FakeConfirmation[] = ['reverted']
    const scheme = createFakeScheme({ confirm: async () => outcomes.shift() ?? 'confirmed' })
    const facilitator = createFacilitator({ schemes: [scheme], limits: limits(), now: () => clock })
    expect(await facilitator.settle(payment(1))).toMatchObject({
      success: false,
      errorReason: REASONS.evmTransactionFailed,
    })
    expect(await facilitator.verify(payment(2))).toMatchObject({
      isValid: false,
      invalidReason: 'tollgate_payer_cooling_down',
    })
    expect(await facilitator.settle(payment(2))).toMatchObject({
      success: false,
      errorReason: 'tollgate_payer_cooling_down',
      transaction: '',
    })
    expect(scheme.broadcasts).toHaveLength(1)
    // Another payer is not affected.
    expect((await facilitator.settle(payment(3, `0x${'c'.repeat(40)}`))).success).toBe(true)
    clock += 600_001
    expect((await facilitator.settle(payment(4))).success).toBe(true)
  })

  test('over HTTP the caller is the bearer token', async () => {
    const facilitator = createFacilitator({
      schemes: [createFakeScheme()],
      limits: limits({
        perPayer: { settles: 0, windowMs: 60_000 },
        perCaller: { settles: 2, windowMs: 60_000 },
      }),
    })
    const app = createFacilitatorApp(facilitator, { authToken: 'secret' })
    const settle = async (nonce: number) =>
      (await (
        await app.request('/settle', {
          method: 'POST',
          headers: { Authorization: 'Bearer secret', 'Content-Type': 'application/json' },
          body: JSON.stringify(payment(nonce, `0x${nonce.toString(16).padStart(40, '0')}`)),
        })
      ).json()) as { success: boolean }
    expect((await settle(1)).success).toBe(true)
    expect((await settle(2)).success).toBe(true)
    expect(await settle(3)).toMatchObject({ success: false, errorReason: 'tollgate_rate_limited' })
  })
})

describe('limits in the configuration file', () => {
  const env = { KEY: `0x${'1'.repeat(64)}` }
  const network = (extra: Record<string, unknown> = {}) => ({
    [NETWORK]: {
      rpcUrl: 'http://127.0.0.1:8545',
      schemes: ['eip3009'],
      signers: [{ privateKeyEnv: 'KEY' }],
      ...extra,
    },
  })

  test('defaults: 0.001 of a token as the floor, 60 per payer and 6000 per caller a minute, 10 min cool-down', () => {
    const config = parseFacilitatorConfig({ networks: network() }, env)
    expect(config.limits.minAmounts.get(toMinAmountKey(NETWORK, USDC))).toBe(1000n)
    expect(config.limits.perPayer).toEqual({ settles: 60, windowMs: 60_000 })
    expect(config.limits.perCaller).toEqual({ settles: 6000, windowMs: 60_000 })
    expect(config.limits.revertCooldownMs).toBe(600_000)
  })

  test('minAmounts by symbol or address override the default; an unknown asset is refused', () => {
    const bySymbol = parseFacilitatorConfig({ networks: network({ minAmounts: { USDC: '5000' } }) }, env)
    expect(bySymbol.limits.minAmounts.get(toMinAmountKey(NETWORK, USDC))).toBe(5000n)
    const byAddress = parseFacilitatorConfig(
      {
        networks: network({ minAmounts: { [USDC.toLowerCase()]: '0' } }),
        limits: { defaultMinAmount: 'none' },
      },
      env,
    )
    expect(byAddress.limits.minAmounts.get(toMinAmountKey(NETWORK, USDC))).toBe(0n)
    expect(() => parseFacilitatorConfig({ networks: network({ minAmounts: { DAI: '1' } }) }, env)).toThrow(
      /minAmounts\.DAI: no asset DAI/,
    )
    expect(() => resolveSettleLimits([], { perPayer: { settles: -1, windowSeconds: 1 } })).toThrow()
  })
})
