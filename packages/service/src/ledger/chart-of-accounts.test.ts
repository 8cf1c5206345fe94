import { describe, expect, test } from 'vitest'
import {
  getAccountPolicy,
  hotAccountCodes,
  hotAccountShard,
  hotAccountShards,
  isAccountCode,
} from './chart-of-accounts.js'

describe('hot account shards', () => {
  test('default: the base code is shard 0 and every shard is an unflagged chart code', () => {
    const codes = hotAccountCodes('platform:fx')
    expect(codes).toHaveLength(hotAccountShards)
    expect(codes[0]).toBe('platform:fx')
    expect(codes[1]).toBe('platform:fx:shard1')
    for (const code of [...codes, ...hotAccountCodes('platform:fees')]) {
      expect(isAccountCode(code)).toBe(true)
      expect(getAccountPolicy(code)).toMatchObject({ merchantId: null, debitsMustNotExceedCredits: false })
    }
    expect(isAccountCode('platform:fx:shard0')).toBe(false)
    expect(isAccountCode('platform:fx:USDT')).toBe(false)
  })

  test('behavior: a key always picks the same shard, and many keys use every shard', () => {
    expect(hotAccountShard('platform:fees', 'swq_abc')).toBe(hotAccountShard('platform:fees', 'swq_abc'))
    const used = new Set(
      Array.from({ length: 400 }, (_, i) => hotAccountShard('platform:fx', `swq_${i.toString(36)}x`)),
    )
    expect([...used].sort()).toEqual([...hotAccountCodes('platform:fx')].sort())
  })
})
