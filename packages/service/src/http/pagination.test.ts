import { describe, expect, test } from 'vitest'
import { createPageMeta, DateRangeQuery, isIsoDate, PageQuery, toOffset } from './pagination.js'

describe('isIsoDate', () => {
  test('accepts dates and date-times', () => {
    for (const value of [
      '2026-01-31',
      '2026-02-28T10:00:00Z',
      '2024-02-29T23:59:59.999+01:00',
      '2026-03-01T10:00',
      '0001-01-01',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(isIsoDate(value), value).toBe(true)
    }
  })
  test('behavior: rejects impossible or non-ISO values', () => {
    for (const value of [
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      'yesterday',
      '01/02/2026',
      '2026-01-01T25:00:00Z',
      '',
      '0000-01-01',
      '0001-01-01T00:00:00+14:00',
      '10000-01-01',
      '2026-01-01T00:00:00+99:00',
    ]) {
      expect(isIsoDate(value), value).toBe(false)
    }
  })
})

describe('PageQuery', () => {
  test('default', () => {
    expect(PageQuery.parse({})).toEqual({ page: 1, size: 10 })
  })
  test('behavior: bounds', () => {
    expect(PageQuery.safeParse({ page: '0' }).success).toBe(false)
    expect(PageQuery.safeParse({ size: '101' }).success).toBe(false)
    expect(PageQuery.safeParse({ size: '0' }).success).toBe(false)
    expect(PageQuery.safeParse({ size: 'ten' }).success).toBe(false)
    expect(PageQuery.parse({ page: '3', size: '100' })).toEqual({ page: 3, size: 100 })
  })
  test('meta and offset', () => {
    expect(createPageMeta({ page: 2, size: 10 }, 21)).toEqual({ page: 2, size: 10, total: 21, totalPages: 3 })
    expect(createPageMeta({ page: 1, size: 10 }, 0)).toEqual({ page: 1, size: 10, total: 0, totalPages: 0 })
    expect(toOffset({ page: 3, size: 25 })).toBe(50)
  })
})

describe('DateRangeQuery', () => {
  test('a bare endDate covers the whole UTC day', () => {
    const parsed = DateRangeQuery.parse({ startDate: '2026-01-01', endDate: '2026-01-31' })
    expect(parsed.startDate?.toISOString()).toBe('2026-01-01T00:00:00.000Z')
    expect(parsed.endDate?.toISOString()).toBe('2026-01-31T23:59:59.999Z')
  })
})
