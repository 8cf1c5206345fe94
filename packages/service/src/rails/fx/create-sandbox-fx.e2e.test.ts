import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createSandboxFx, type SandboxFx } from './create-sandbox-fx.js'
import { fxCurrencies } from './sandbox-fx-table.js'

describeEachDatabase('sandbox FX rates', (getDb) => {
  let fx: SandboxFx
  const at = new Date('2026-11-25T00:00:00Z')
  beforeAll(() => {
    fx = createSandboxFx({ db: getDb(), clock: { now: () => at } })
  })

  test('default: direct, inverse and cross rates through USD with both spreads, 8 places rounded down', async () => {
    // USD → NGN: 1550 less NGN's 50 bps = 1542.25.
    expect(await fx.getRate('USD', 'NGN')).toEqual({ from: 'USD', to: 'NGN', rate: '1542.25000000', at })
    // NGN → USD: 1/1550 × 0.995 = 0.000641935…
    expect((await fx.getRate('NGN', 'USD')).rate).toBe('0.00064193')
    // USDT → NGN: 1550 × (1 − 0.0010 − 0.0050) = 1540.7.
    expect((await fx.getRate('USDT', 'NGN')).rate).toBe('1540.70000000')
    // NGN → KES crosses through USD: 129/1550 × 0.99 = 0.0823935…
    expect((await fx.getRate('NGN', 'KES')).rate).toBe('0.08239354')
    expect((await fx.getRate('BTC', 'USDC')).rate).toBe('93955.00000000')
    expect((await fx.getRate('USDC', 'USDC')).rate).toBe('1.00000000')
  })

  test('default: listRates gives every ordered pair of the table once', async () => {
    const rates = await fx.listRates()
    expect(rates).toHaveLength(fxCurrencies.length * (fxCurrencies.length - 1))
    expect(new Set(rates.map((r) => `${r.from}>${r.to}`)).size).toBe(rates.length)
    expect(rates.every((r) => /^\d+\.\d{8}$/.test(r.rate))).toBe(true)
  })

  test('behavior: rates set in one instance persist and are seen by another (another process)', async () => {
    const set = await fx.setRates([
      { from: 'USD', to: 'GHS', rate: '12.5', spreadBps: 0 },
      { from: 'ETH', to: 'USD', rate: '4000' },
    ])
    expect(set).toEqual([
      { from: 'USD', to: 'GHS', rate: '12.50000000', at },
      { from: 'GHS', to: 'USD', rate: '0.08000000', at },
      // ETH keeps its 100 bps spread.
      { from: 'USD', to: 'ETH', rate: '0.00024750', at },
      { from: 'ETH', to: 'USD', rate: '3960.00000000', at },
    ])
    const other = createSandboxFx({ db: getDb(), clock: { now: () => at } })
    expect((await other.getRate('GHS', 'USD')).rate).toBe('0.08000000')
    expect((await other.getRate('ETH', 'GHS')).rate).toBe('49500.00000000')
  })

  test('behavior: unknown currencies, pairs without USD, zero rates and bad spreads are validation errors', async () => {
    const invalid = expect.objectContaining({ code: 'validation_error' })
    await expect(fx.getRate('USD', 'XYZ')).rejects.toEqual(invalid)
    await expect(fx.getRate('XYZ', 'USD')).rejects.toEqual(invalid)
    for (const rates of [
      [{ from: 'NGN', to: 'KES', rate: '0.08' }],
      [{ from: 'USD', to: 'USD', rate: '1' }],
      [{ from: 'USD', to: 'XYZ', rate: '1' }],
      [{ from: 'USD', to: 'NGN', rate: '0' }],
      [{ from: 'USD', to: 'NGN', rate: '-1' }],
      [{ from: 'USD', to: 'NGN', rate: '1600', spreadBps: 1001 }],
      // One bad entry rejects the whole request: NGN keeps its rate.
      [
        { from: 'USD', to: 'NGN', rate: '1' },
        { from: 'USD', to: 'KES', rate: 'x' },
      ],
    ]) {
      await expect(fx.setRates(rates), JSON.stringify(rates)).rejects.toEqual(invalid)
    }
    expect((await fx.getRate('USD', 'NGN')).rate).toBe('1542.25000000')
  })

  test('default: convert applies a quoted rate exactly', async () => {
    const { rate } = await fx.getRate('USDT', 'NGN')
    // 10 USDT (6 places) → NGN (2 places) at 1540.70 = 15407.00 NGN.
    expect(fx.convert({ amount: 10_000_000n, fromScale: 6, toScale: 2, rate })).toBe(1_540_700n)
  })
})
