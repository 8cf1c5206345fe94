import { describe, expect, it } from 'vitest'
import { createIdGenerator } from './deps.js'

describe('createIdGenerator', () => {
  it('creates distinct prefixed 96-bit ids, also across its draws of random bytes', () => {
    const ids = createIdGenerator()
    const created = Array.from({ length: 1000 }, (_, i) => ids.create(i % 2 ? 'req' : 'ps'))
    for (const [i, id] of created.entries()) {
      expect(id).toMatch(i % 2 ? /^req_[0-9a-f]{24}$/ : /^ps_[0-9a-f]{24}$/)
    }
    expect(new Set(created.map((id) => id.slice(id.indexOf('_') + 1))).size).toBe(created.length)
  })

  it('gives two generators different ids', () => {
    expect(createIdGenerator().create('req')).not.toBe(createIdGenerator().create('req'))
  })
})
