import { AppError, type FacilitatorClient } from '@tollgate/core'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

type Answer = {
  status: number
  body: {
    data: unknown
    message: string
    error?: {
      code: string
      param?: string
      details?: { reason: string; network: string; supportedAssets: string[] }
    }
  }
}

// Spec "Agent payments": POST /payments/agent/verify and /settle take `scheme, chain, asset,
// payload`; "solana = SOL, USDC, USDT on Solana"; "permit2 = USDC and USDT on Base, Arbitrum, BSC".
// SOL (native) transfers are not settled by the solana scheme, and Tether issues no USDT on Base
// mainnet: both are a 400 `unsupported_asset_chain` that says so, before any facilitator call.
describeEachDatabase('agent payment assets (spec "Agent payments")', (getDb) => {
  let h: Harness
  let calls = 0
  const facilitator: FacilitatorClient = {
    verify: () => {
      calls += 1
      return Promise.reject(new AppError('provider_unavailable', { message: 'stub' }))
    },
    settle: () => {
      calls += 1
      return Promise.reject(new AppError('provider_unavailable', { message: 'stub' }))
    },
    getSupported: () => {
      calls += 1
      return Promise.reject(new AppError('provider_unavailable', { message: 'stub' }))
    },
  }
  beforeAll(async () => {
    h = await createHarness(getDb(), { facilitator })
  })
  const post = async (path: string, json: unknown, key: string): Promise<Answer> => {
    const res = await h.request(`/api/v1/payments/agent/${path}`, { method: 'POST', json, key })
    return { status: res.status, body: (await res.json()) as Answer['body'] }
  }

  test('solana scheme with SOL: 400 unsupported_asset_chain naming SOL and the assets it takes', async () => {
    for (const key of [h.a.testKey, h.a.liveKey]) {
      const verify = await post(
        'verify',
        { scheme: 'solana', chain: 'solana', asset: 'SOL', payload: {} },
        key,
      )
      expect(verify.status).toBe(400)
      expect(verify.body.error).toMatchObject({
        code: 'unsupported_asset_chain',
        param: 'asset',
        details: { reason: 'native_asset_not_supported', supportedAssets: ['USDC', 'USDT'] },
      })
      expect(verify.body.message).toContain('SOL')
      expect(verify.body.message).toContain('USDC, USDT')
      const settle = await post(
        'settle',
        { sessionReference: 'any', scheme: 'solana', chain: 'solana', asset: 'SOL', payload: {} },
        key,
      )
      expect([settle.status, settle.body.error?.code]).toEqual([400, 'unsupported_asset_chain'])
    }
    expect(calls).toBe(0)
  })

  test('live key, permit2 USDT on Base: 400 unsupported_asset_chain, the asset does not exist there', async () => {
    const verify = await post(
      'verify',
      { scheme: 'permit2', chain: 'base', asset: 'USDT', payload: {} },
      h.a.liveKey,
    )
    expect(verify.status).toBe(400)
    expect(verify.body.error).toMatchObject({
      code: 'unsupported_asset_chain',
      param: 'asset',
      details: { reason: 'asset_not_on_chain', network: 'eip155:8453', supportedAssets: ['USDC'] },
    })
    expect(verify.body.message).toContain('USDT does not exist on base (eip155:8453)')
    expect(calls).toBe(0)
  })

  test('live key, permit2 USDT on Arbitrum and BSC: the asset is accepted (the payload is judged)', async () => {
    for (const chain of ['arbitrum', 'bsc']) {
      const verify = await post(
        'verify',
        { scheme: 'permit2', chain, asset: 'USDT', payload: {} },
        h.a.liveKey,
      )
      // An empty payload fails the checks: the asset itself was not refused.
      expect([verify.status, verify.body.error?.code], chain).toEqual([400, 'invalid_payment'])
      expect(verify.body.data).toMatchObject({ valid: false })
    }
  })
})
