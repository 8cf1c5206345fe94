import { beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import type { Customer } from './customer.js'

type Body<T> = { success: boolean; data: T; meta?: { total: number }; error?: { code: string } }

describeEachDatabase('customer routes', (getDb) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb())
  })
  const read = async <T>(res: Response) => (await res.json()) as Body<T>
  const create = (json: unknown, key?: string) =>
    h.request('/api/v1/customers', { method: 'POST', json, ...(key ? { key } : {}) })
  const count = async () =>
    Number(
      (
        await h.deps.db
          .selectFrom('customers')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  test('auth: every customer route is a 401 without a key', async () => {
    for (const [method, path] of [
      ['POST', '/customers'],
      ['GET', '/customers'],
      ['GET', '/customers/cus_1'],
      ['PATCH', '/customers/cus_1'],
    ] as const) {
      expect((await h.request(`/api/v1${path}`, { method, key: null })).status).toBe(401)
    }
  })

  test('POST /customers: 201 when new, 200 with the same customer for a known e-mail (any case)', async () => {
    const res = await create({
      email: 'Ada@Example.com',
      firstName: 'Ada',
      phone: '+2348012345678',
      metadata: { tier: 'gold' },
    })
    expect(res.status).toBe(201)
    const created = (await read<Customer>(res)).data
    expect(created).toEqual({
      id: expect.stringMatching(/^cus_/),
      firstName: 'Ada',
      lastName: null,
      email: 'Ada@Example.com',
      phone: '+2348012345678',
      telegramId: null,
      metadata: { tier: 'gold' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const again = await create({ email: 'ada@example.com', lastName: 'Lovelace' })
    expect(again.status).toBe(200)
    expect((await read<Customer>(again)).data).toMatchObject({ id: created.id, lastName: 'Lovelace' })
    const other = await create({ email: 'ada@example.com' }, h.b.testKey)
    expect(other.status).toBe(201)
    expect((await read<Customer>(other)).data.id).not.toBe(created.id)
  })

  test('POST /customers: bad input is 400 and writes nothing', async () => {
    const before = await count()
    for (const json of [
      {},
      { email: 'not-an-email' },
      { firstName: '' },
      { phone: 'call me' },
      { firstName: 'A', metadata: { n: 1 } },
      { firstName: 'A', unknown: true },
      { firstName: 'A', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
    ]) {
      const res = await create(json)
      expect(res.status, JSON.stringify(json)).toBe(400)
      expect((await read(res)).error?.code).toBe('validation_error')
    }
    expect(await count()).toBe(before)
  })

  test('GET /customers and /customers/{id}: list, e-mail filter, isolation', async () => {
    const created = (await read<Customer>(await create({ email: 'grace@example.com', firstName: 'Grace' })))
      .data
    const list = await read<Customer[]>(await h.request('/api/v1/customers'))
    expect(list.data[0]?.id).toBe(created.id)
    expect(list.meta?.total).toBe(2)
    const filtered = await read<Customer[]>(await h.request('/api/v1/customers?email=GRACE@example.com'))
    expect(filtered.data.map((c) => c.id)).toEqual([created.id])
    const one = await h.request(`/api/v1/customers/${created.id}`)
    expect((await read<Customer>(one)).data).toEqual(created)
    for (const key of [h.b.testKey, h.a.liveKey]) {
      expect((await h.request(`/api/v1/customers/${created.id}`, { key })).status).toBe(404)
      const theirs = await read<Customer[]>(await h.request('/api/v1/customers', { key }))
      expect(theirs.data.some((c) => c.id === created.id)).toBe(false)
    }
  })

  test('PATCH /customers/{id}: changes, clears, merges metadata; conflicts and bad input refused', async () => {
    const created = (
      await read<Customer>(
        await create({ email: 'linus@example.com', firstName: 'Linus', metadata: { a: '1', b: '2' } }),
      )
    ).data
    const patch = (json: unknown, key?: string, id = created.id) =>
      h.request(`/api/v1/customers/${id}`, { method: 'PATCH', json, ...(key ? { key } : {}) })
    const res = await patch({ lastName: 'T', firstName: null, metadata: { a: '', c: '3' } })
    expect(res.status).toBe(200)
    expect((await read<Customer>(res)).data).toMatchObject({
      firstName: null,
      lastName: 'T',
      email: 'linus@example.com',
      metadata: { b: '2', c: '3' },
    })
    const taken = await patch({ email: 'GRACE@example.com' })
    expect(taken.status).toBe(409)
    expect((await read(taken)).error?.code).toBe('customer_email_taken')
    expect((await patch({ lastName: 'X' }, h.b.testKey)).status).toBe(404)
    expect((await patch({ lastName: 'X' }, undefined, 'cus_missing')).status).toBe(404)
    for (const json of [{}, { email: 'bad' }, { id: 'cus_other' }]) {
      const bad = await patch(json)
      expect(bad.status, JSON.stringify(json)).toBe(400)
    }
    const after = (await read<Customer>(await h.request(`/api/v1/customers/${created.id}`))).data
    expect(after).toMatchObject({ lastName: 'T', email: 'linus@example.com' })
  })
})
