import { describe, expect, test } from 'vitest'
import { isLoopbackHost } from './is-loopback-host.js'

describe('isLoopbackHost', () => {
  test('behavior: loopback names and addresses only', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]']) {
      expect(isLoopbackHost(host)).toBe(true)
    }
    for (const host of ['0.0.0.0', '::', '', '10.0.0.1', 'localhost.evil.com', '127.0.0.1.nip.io', '[::]']) {
      expect(isLoopbackHost(host)).toBe(false)
    }
  })
})
