import { beforeAll, expect, test } from 'vitest'
import { createRateLimiter } from '../http/rate-limit.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import { createHarness, type Harness } from '../testing/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

describeEachDatabase('payment pages routes', (getDb) => {
  let h: Harness
  let limited: Harness
  let bankA: string
  let bankB: string
  let payoutA: string

  const insertRecipient = async (merchantId: string, type: 'ngn_bank_account' | 'crypto_address') => {
    const id = h.deps.ids.create('rcp')
    const now = new Date()
    await h.deps.db
      .insertInto('recipients')
      .values({
        id,
        merchant_id: merchantId,
        environment: 'test',
        type,
        label: 'Main account',
        details: JSON.stringify({
          accountName: 'ADA STORES LTD',
          accountNumber: '0123456789',
          bankName: 'Guaranty Trust Bank',
          bankCode: '058',
        }),
        fingerprint: id,
        search_text: 'ada',
        created_at: now,
        updated_at: now,
      })
      .execute()
    return id
  }

  beforeAll(async () => {
    h = await createHarness(getDb(), { rails: createFakeSessionRails })
    limited = await createHarness(getDb(), {
      rails: createFakeSessionRails,
      checkout: { rateLimiter: createRateLimiter({ limit: 3, windowMs: 60_000 }) },
    })
    bankA = await insertRecipient(h.a.id, 'ngn_bank_account')
    bankB = await insertRecipient(h.b.id, 'ngn_bank_account')
    payoutA = await insertRecipient(h.a.id, 'crypto_address')
  })

  const create = async (json: Json, key?: string) => {
    const res = await h.request('/api/v1/payments/pages', { method: 'POST', json, ...(key ? { key } : {}) })
    return { status: res.status, body: (await res.json()) as Json }
  }
  const count = async (table: 'payment_pages' | 'payment_page_products') =>
    Number(
      (
        await h.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  test('POST creates a page with every field of the spec; money is a decimal string; 201', async () => {
    const { status, body } = await create({
      title: 'Lagos coffee',
      description: 'Fresh beans',
      currency: 'NGN',
      minAmount: 1500.5,
      bankAccountIds: [bankA],
      enableQuantity: true,
      imageUrl: 'https://img.example/coffee.png',
      products: [
        { title: 'Beans 1 kg', price: 12000, description: 'Whole', sortOrder: 2 },
        { title: 'Mug', price: 0.1, isActive: false },
      ],
    })
    expect(status).toBe(201)
    expect(body).toMatchObject({ success: true, message: expect.any(String) })
    const page = body.data
    expect(Object.keys(page).sort()).toEqual(
      [
        'id',
        'reference',
        'merchant',
        'title',
        'description',
        'isActive',
        'currency',
        'minAmount',
        'enableQuantity',
        'bankAccounts',
        'products',
        'imageUrl',
        'url',
        'createdAt',
        'updatedAt',
      ].sort(),
    )
    expect(page).toMatchObject({
      merchant: { businessName: 'Merchant A', logoUrl: null },
      title: 'Lagos coffee',
      isActive: true,
      currency: 'NGN',
      minAmount: '1500.50',
      enableQuantity: true,
      url: `${h.deps.settings.publicBaseUrl}/pay/${page.reference}`,
    })
    expect(page.products.map((p: Json) => [p.title, p.price, p.isActive, p.sortOrder])).toEqual([
      ['Mug', '0.10', false, 1],
      ['Beans 1 kg', '12000.00', true, 2],
    ])
    expect(Object.keys(page.bankAccounts[0]).sort()).toEqual(
      [
        'isTemporary',
        'notes',
        'id',
        'accountName',
        'accountNumber',
        'bankName',
        'bankCode',
        'accountType',
        'currency',
        'nickName',
        'default',
        'isTrusted',
        'createdAt',
        'updatedAt',
      ].sort(),
    )
    expect(page.bankAccounts[0]).toMatchObject({ id: bankA, accountNumber: '******6789', currency: 'NGN' })
    expect(JSON.stringify(body)).not.toContain('0123456789')
  })

  test('validation: stable 400 codes naming the field, and nothing is written', async () => {
    const before = [await count('payment_pages'), await count('payment_page_products')]
    const cases: [Json, string][] = [
      [{ currency: 'NGN' }, 'body.title'],
      [{ title: '', currency: 'NGN' }, 'body.title'],
      [{ title: 'x'.repeat(51), currency: 'NGN' }, 'body.title'],
      [{ title: 'T' }, 'body.currency'],
      [{ title: 'T', currency: 'EUR' }, 'body.currency'],
      [{ title: 'T', currency: 'NGN', minAmount: '10' }, 'body.minAmount'],
      [{ title: 'T', currency: 'NGN', minAmount: 0 }, 'body.minAmount'],
      [{ title: 'T', currency: 'NGN', minAmount: -5 }, 'body.minAmount'],
      [{ title: 'T', currency: 'NGN', minAmount: 1.005 }, 'body.minAmount'],
      [{ title: 'T', currency: 'NGN', enableQuantity: true }, 'body.enableQuantity'],
      [{ title: 'T', currency: 'NGN', products: [{ title: 'P', price: 0 }] }, 'body.products.0.price'],
      [{ title: 'T', currency: 'NGN', products: [{ title: 'P', price: 1, extra: 1 }] }, 'body.products.0'],
      [{ title: 'T', currency: 'NGN', imageUrl: 'http://img.example/a.png' }, 'body.imageUrl'],
      [{ title: 'T', currency: 'USD', bankAccountIds: [bankA] }, 'body.bankAccountIds'],
      [{ title: 'T', currency: 'NGN', bankAccountIds: [bankB] }, 'body.bankAccountIds'],
      [{ title: 'T', currency: 'NGN', bankAccountIds: [payoutA] }, 'body.bankAccountIds'],
      [{ title: 'T', currency: 'NGN', bankAccountIds: [bankA, bankA] }, 'body.bankAccountIds'],
      [{ title: 'T', currency: 'NGN', unknown: true }, 'body'],
    ]
    for (const [json, field] of cases) {
      const { status, body } = await create(json)
      expect(status, JSON.stringify(json)).toBe(400)
      expect(body.error.code, JSON.stringify(json)).toBe('validation_error')
      const fields = body.error.details.map((d: Json) => d.field)
      expect(
        fields.some((f: string) => f === field || f.startsWith(`${field}.`)),
        `${JSON.stringify(json)} -> ${fields}`,
      ).toBe(true)
    }
    expect([await count('payment_pages'), await count('payment_page_products')]).toEqual(before)
  })

  test('PATCH changes given fields, keeps products by id, replaces the rest; rules hold on the result', async () => {
    const { body } = await create({
      title: 'Tickets',
      currency: 'USD',
      enableQuantity: true,
      products: [
        { title: 'Day pass', price: 20 },
        { title: 'Week pass', price: 90 },
      ],
    })
    const page = body.data
    const [day] = page.products
    const patch = (json: Json, key?: string) =>
      h.request(`/api/v1/payments/pages/${page.id}`, { method: 'PATCH', json, ...(key ? { key } : {}) })

    const res = await patch({
      title: 'Passes',
      minAmount: 25,
      products: [
        { id: day.id, title: 'Day pass', price: 22.5 },
        { title: 'Month pass', price: 300 },
      ],
    })
    expect(res.status).toBe(200)
    const updated = ((await res.json()) as Json).data
    expect(updated).toMatchObject({
      id: page.id,
      reference: page.reference,
      title: 'Passes',
      minAmount: '25.00',
    })
    expect(updated.products.map((p: Json) => [p.title, p.price])).toEqual([
      ['Day pass', '22.50'],
      ['Month pass', '300.00'],
    ])
    expect(updated.products[0].id).toBe(day.id)
    expect(updated.createdAt).toBe(page.createdAt)

    // Removing every product while quantities stay enabled is refused, and nothing changes.
    const refused = await patch({ products: [] })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as Json).error.details[0].field).toBe('body.enableQuantity')
    expect(await count('payment_page_products')).toBeGreaterThanOrEqual(2)
    const foreignProduct = await patch({ products: [{ id: 'prod_other', title: 'X', price: 1 }] })
    expect(foreignProduct.status).toBe(400)

    expect((await patch({ minAmount: null, isActive: false })).status).toBe(200)
    expect((await patch({})).status).toBe(400)
    expect((await patch({ title: 'Theirs' }, h.b.testKey)).status).toBe(404)
    expect((await patch({ title: 'Live' }, h.a.liveKey)).status).toBe(404)
  })

  test('GET lists newest first with paging, search and isActive; tenants and environments are apart', async () => {
    const other = await create({ title: 'B page', currency: 'USD' }, h.b.testKey)
    expect(other.status).toBe(201)
    const titles = ['Alpha shop', 'Beta shop', 'Gamma stall']
    for (const title of titles) {
      expect((await create({ title, currency: 'KES', isActive: title !== 'Beta shop' })).status).toBe(201)
    }
    const list = async (query: string, key?: string) =>
      (await (await h.request(`/api/v1/payments/pages${query}`, key ? { key } : {})).json()) as Json
    const all = await list('?size=2')
    expect(all.meta).toMatchObject({ page: 1, size: 2 })
    expect(all.data.map((p: Json) => p.title)).toEqual(['Gamma stall', 'Beta shop'])
    const second = await list('?size=2&page=2')
    expect(second.data[0].title).toBe('Alpha shop')
    expect(all.meta.totalPages).toBe(Math.ceil(all.meta.total / 2))
    expect((await list('?search=SHOP')).data.map((p: Json) => p.title)).toEqual(['Beta shop', 'Alpha shop'])
    expect((await list('?search=shop&isActive=false')).data.map((p: Json) => p.title)).toEqual(['Beta shop'])
    expect((await list('?search=%25')).meta.total).toBe(0)
    const everything = JSON.stringify(await list('?size=100'))
    expect(everything).not.toContain('B page')
    expect((await list('', h.b.testKey)).data.map((p: Json) => p.title)).toEqual(['B page'])
    expect((await list('', h.a.liveKey)).meta.total).toBe(0)
    expect((await h.request('/api/v1/payments/pages?isActive=yes')).status).toBe(400)
  })

  test('conformance: DELETE is 200 with no content; the page leaves the list, its public view is 404, another merchant gets 404', async () => {
    const { body } = await create({ title: 'Short-lived', currency: 'USD' })
    const page = body.data
    const foreign = await h.request(`/api/v1/payments/pages/${page.id}`, {
      method: 'DELETE',
      key: h.b.testKey,
    })
    expect(foreign.status).toBe(404)
    expect(((await foreign.json()) as Json).error.code).toBe('not_found')
    const res = await h.request(`/api/v1/payments/pages/${page.id}`, { method: 'DELETE' })
    // Spec: "DELETE /payments/pages/{id} - 200 with no content".
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
    expect(res.headers.get('content-length')).toBe('0')
    const again = await h.request(`/api/v1/payments/pages/${page.id}`, { method: 'DELETE' })
    expect(again.status).toBe(404)
    const listed = (await (await h.request('/api/v1/payments/pages?size=100')).json()) as Json
    expect(listed.data.map((p: Json) => p.id)).not.toContain(page.id)
    const view = await h.request(`/api/v1/payments/pages/${page.reference}/sessions`, { key: null })
    expect(view.status).toBe(404)
  })

  test('public view: no key, only what the page shows (active products, masked accounts, no ids of the merchant)', async () => {
    const { body } = await create({
      title: 'Shop',
      description: 'All things',
      currency: 'NGN',
      minAmount: 100,
      bankAccountIds: [bankA],
      products: [
        { title: 'Shown', price: 500 },
        { title: 'Hidden', price: 700, isActive: false },
      ],
    })
    const page = body.data
    const res = await h.request(`/api/v1/payments/pages/${page.reference}/sessions`, { key: null })
    expect(res.status).toBe(200)
    expect(res.headers.get('ratelimit-limit')).toBe('120')
    const text = await res.text()
    const view = (JSON.parse(text) as Json).data
    expect(view).toEqual({
      merchant: { businessName: 'Merchant A', logoUrl: null },
      title: 'Shop',
      description: 'All things',
      currency: 'NGN',
      minAmount: '100.00',
      enableQuantity: false,
      products: [
        {
          id: page.products[0].id,
          title: 'Shown',
          price: '500.00',
          description: null,
          sortOrder: 0,
          imageUrl: null,
        },
      ],
      bankAccounts: [
        {
          id: bankA,
          accountName: 'ADA STORES LTD',
          accountNumber: '******6789',
          bankName: 'Guaranty Trust Bank',
        },
      ],
      imageUrl: null,
      url: page.url,
      isActive: true,
    })
    for (const secret of [page.id, h.a.id, '0123456789', 'Hidden']) {
      expect(text).not.toContain(secret)
    }
    // A key is optional, but one that is sent must be valid.
    expect(
      (await h.request(`/api/v1/payments/pages/${page.reference}/sessions`, { key: h.b.testKey })).status,
    ).toBe(200)
    const bad = await h.request(`/api/v1/payments/pages/${page.reference}/sessions`, { key: 'sk_test_nope' })
    expect(bad.status).toBe(401)
    expect((await h.request('/api/v1/payments/pages/pl_unknown/sessions', { key: null })).status).toBe(404)
  })

  test('public view is rate-limited per client IP with the hosted pages, 429 rate_limited', async () => {
    const res = await limited.request('/api/v1/payments/pages', {
      method: 'POST',
      json: { title: 'Limited', currency: 'USD' },
    })
    const page = ((await res.json()) as Json).data
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await limited.request(`/api/v1/payments/pages/${page.reference}/sessions`, { key: null })).status,
      )
    }
    // The hosted page shares the budget: the fourth request of this client is refused.
    const refused = await limited.app.request(`/pay/${page.reference}`)
    expect(statuses).toEqual([200, 200, 200])
    expect(refused.status).toBe(429)
    const json = await limited.request(`/api/v1/payments/pages/${page.reference}/sessions`, { key: null })
    expect(json.status).toBe(429)
    expect(json.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(((await json.json()) as Json).error.code).toBe('rate_limited')
  })

  test('the routes are in the OpenAPI document; the public one needs no key', async () => {
    const doc = (await (await h.request('/api/v1/openapi.json', { key: null })).json()) as Json
    expect(Object.keys(doc.paths['/api/v1/payments/pages']).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/api/v1/payments/pages/{id}']).sort()).toEqual(['delete', 'patch'])
    expect(doc.paths['/api/v1/payments/pages/{reference}/sessions'].get.security).toContainEqual({})
  })
})
