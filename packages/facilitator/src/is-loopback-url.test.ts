import { describe, expect, it } from 'vitest'
import { isLoopbackUrl } from './is-loopback-url.js'

describe('isLoopbackUrl', () => {
  it('accepts loopback hosts', () => {
    expect(isLoopbackUrl('http://127.0.0.1:8545')).toBe(true)
    expect(isLoopbackUrl('http://127.1.2.3:8545/rpc')).toBe(true)
    expect(isLoopbackUrl('http://localhost:8545')).toBe(true)
    expect(isLoopbackUrl('http://[::1]:8545')).toBe(true)
  })

  it('refuses other hosts and malformed URLs', () => {
    expect(isLoopbackUrl('https://sepolia.base.org')).toBe(false)
    expect(isLoopbackUrl('http://10.0.0.5:8545')).toBe(false)
    expect(isLoopbackUrl('http://127.0.0.1.example.com')).toBe(false)
    expect(isLoopbackUrl('http://localhost.example.com')).toBe(false)
    expect(isLoopbackUrl('not a url')).toBe(false)
  })
})
