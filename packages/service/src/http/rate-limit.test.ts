import { describe, expect, test } from 'vitest'
import { createRateLimiter } from './rate-limit.js'

describe('createRateLimiter', () => {
  test('allows `limit` hits per window per key, then resets', () => {
    let now = 1_000_000
    const limiter = createRateLimiter({ limit: 2, windowMs: 1_000, now: () => now })
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 1 })
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 0 })
    expect(limiter.hit('a')).toMatchObject({ allowed: false, remaining: 0, resetInMs: 1_000 })
    expect(limiter.hit('b').allowed).toBe(true)
    now += 1_000
    expect(limiter.hit('a')).toMatchObject({ allowed: true, remaining: 1 })
  })
})

describe('createRateLimiter bound', () => {
  test('behavior: counts at most maxKeys keys at once, forgetting the least recently seen', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, maxKeys: 2, now: () => 1_000_000 })
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('b').allowed).toBe(true)
    expect(limiter.hit('b').allowed).toBe(false)
    expect(limiter.hit('c').allowed).toBe(true)
    // `a` was evicted for `c`; `b` is still counted.
    expect(limiter.hit('a').allowed).toBe(true)
    expect(limiter.hit('c').allowed).toBe(false)
  })
})
