import { createTollgateClient } from '@tollgate/client'
import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

describeEachDatabase('@tollgate/client against the service app', (getDb) => {
  let h: Harness
  const urls: string[] = []
  beforeAll(async () => {
    h = await createHarness(getDb())
  })

  const client = (apiKey: string) =>
    createTollgateClient({
      baseUrl: 'http://sandbox.test',
      apiKey,
      fetch: async (request) => {
        urls.push(request.url)
        return h.app.fetch(request)
      },
    })

  test('default: creates a payment session and reads it back by reference, with no path fixes', async () => {
    const created = await client(h.a.testKey).POST('/api/v1/payments', {
      body: { title: 'Order 7', amount: '12.50', currency: 'USD' },
    })
    expect(created.error).toBeUndefined()
    expect(created.response.status).toBe(200)
    const reference = created.data?.data.reference ?? ''
    expect(reference).toMatch(/^ps_/)

    const read = await client(h.a.testKey).GET('/api/v1/payments/reference/{reference}', {
      params: { path: { reference } },
    })
    expect(urls.at(-1)).toBe(`http://sandbox.test/api/v1/payments/reference/${reference}`)
    expect(read.data?.data).toMatchObject({ reference, title: 'Order 7', amount: '12.50', currency: 'USD' })
  })

  test('behavior: errors come back typed, and the key is the one given', async () => {
    const other = await client(h.b.testKey).GET('/api/v1/payments/reference/{reference}', {
      params: { path: { reference: 'ps_nope' } },
    })
    expect(other.response.status).toBe(404)
    expect(other.error?.error.code).toBe('not_found')
    const unauthorized = await client('sk_test_wrong').GET('/api/v1/balance')
    expect(unauthorized.response.status).toBe(401)
  })
})
