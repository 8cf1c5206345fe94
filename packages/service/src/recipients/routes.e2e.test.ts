import { beforeAll, expect, test } from 'vitest'
import { sandboxAccountName } from '../rails/fiat/resolve-sandbox-bank-account.js'
import { sandboxPayoutHolder } from '../sandbox/sandbox-payout-accounts.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createPayoutHarness, type PayoutHarness } from '../testing/payout-harness.js'

type Body = {
  success: boolean
  data: Record<string, unknown> & { details: Record<string, unknown> }
  meta?: { total: number }
  error?: { code: string; details?: { code: string; field: string }[] }
}

const baseAddress = '0x8ba1f109551bD432803012645Ac136ddd64DBA72'
const solanaAddress = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'

describeEachDatabase('recipients routes', (getDb) => {
  let h: PayoutHarness
  const post = (json: unknown, key?: string) =>
    h.request('/api/v1/recipients', { method: 'POST', json, ...(key ? { key } : {}) })
  const count = async () =>
    Number(
      (
        await h.deps.db
          .selectFrom('recipients')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  beforeAll(async () => {
    h = await createPayoutHarness(getDb())
    // B's own name is the holder of 0345678901 at the sandbox bank, written another way.
    const holder = sandboxAccountName('0345678901').toLowerCase().split(' ').reverse().join('  ')
    await h.deps.db.updateTable('merchants').set({ name: holder }).where('id', '=', h.b.id).execute()
  })

  test('crypto address: created (201), then the same destination is returned (200), case-insensitively on EVM', async () => {
    const res = await post({
      type: 'crypto_address',
      details: { chain: 'base', address: baseAddress },
      label: 'Treasury',
    })
    expect(res.status).toBe(201)
    const created = (await res.json()) as Body
    expect(created.data).toMatchObject({
      type: 'crypto_address',
      label: 'Treasury',
      isDefault: false,
      isTrusted: false,
      isTemporary: false,
      notes: null,
      customerId: null,
      details: { chain: 'base', address: baseAddress },
    })
    const again = await post({
      type: 'crypto_address',
      details: { chain: 'base', address: baseAddress.toLowerCase() },
    })
    expect(again.status).toBe(200)
    expect(((await again.json()) as Body).data.id).toBe(created.data.id)
    const solana = await post({
      type: 'crypto_address',
      details: { chain: 'solana', address: solanaAddress },
    })
    expect(solana.status).toBe(201)
  })

  test('invalid crypto details are 400 and write nothing', async () => {
    const before = await count()
    for (const details of [
      { chain: 'base', address: '0x1234' },
      { chain: 'solana', address: baseAddress },
      { chain: 'tron', address: 'TXYZ' },
      { chain: 'nochain', address: baseAddress },
    ]) {
      const res = await post({ type: 'crypto_address', details })
      expect(res.status, JSON.stringify(details)).toBe(400)
      expect(((await res.json()) as Body).error?.code).toBe('validation_error')
    }
    expect(await post({ type: 'zar_bank_account', details: {} }).then((r) => r.status)).toBe(400)
    expect(await count()).toBe(before)
  })

  test('NGN bank account: resolved, matched to the merchant name or business name, masked everywhere', async () => {
    const res = await post({
      type: 'ngn_bank_account',
      details: { accountNumber: '0123456789', bankCode: '058' },
    })
    expect(res.status).toBe(201)
    const text = await res.text()
    expect(text).not.toContain('0123456789')
    const body = JSON.parse(text) as Body
    expect(body.data.details).toEqual({
      accountName: sandboxPayoutHolder,
      accountNumber: '******6789',
      bankName: 'Guaranty Trust Bank',
      bankCode: '058',
      accountType: 'savings',
      currency: 'NGN',
    })
    // A's business name is the holder above; B's own name is this holder in another case, spacing and order.
    const byName = await post(
      { type: 'ngn_bank_account', details: { accountNumber: '0345678901', bankCode: '058' } },
      h.b.testKey,
    )
    expect(byName.status).toBe(201)
    expect(sandboxAccountName('0234567890')).not.toBe(sandboxPayoutHolder)

    const before = await count()
    const mismatch = await post({
      type: 'ngn_bank_account',
      details: { accountNumber: '0234567890', bankCode: '058' },
    })
    expect(mismatch.status).toBe(400)
    expect(((await mismatch.json()) as Body).error?.details?.[0]?.code).toBe('account_name_mismatch')
    const unknown = await post({
      type: 'ngn_bank_account',
      details: { accountNumber: '0009999999', bankCode: '058' },
    })
    expect(unknown.status).toBe(400)
    const malformed = await post({
      type: 'ngn_bank_account',
      details: { accountNumber: '12345', bankCode: '058' },
    })
    expect(malformed.status).toBe(400)
    expect(await count()).toBe(before)

    const listed = await (await h.request('/api/v1/recipients?type=ngn_bank_account')).text()
    expect(listed).not.toContain('0123456789')
    expect(listed).toContain('******6789')
  })

  test('mobile money: resolved to corridor and provider; the wrong corridor is 400', async () => {
    const res = await post({
      type: 'kes_mobile_money',
      details: { phoneNumber: '0712 345 678', accountName: 'Wanjiru Kamau', institutionCode: 'MPESA' },
    })
    expect(res.status).toBe(201)
    const body = (await res.json()) as Body
    expect(body.data.details).toEqual({
      currency: 'KES',
      countryIsoCode: 'KE',
      accountNumber: '+********5678',
      accountName: 'Wanjiru Kamau',
      institutionCode: 'MPESA',
      institutionName: 'M-Pesa',
      accountType: 'personal',
    })
    const wrong = await post({
      type: 'kes_mobile_money',
      details: { phoneNumber: '+233 24 123 4567', accountName: 'Kofi Mensah', institutionCode: 'MPESA' },
    })
    expect(wrong.status).toBe(400)
    expect(((await wrong.json()) as Body).error?.details?.[0]).toMatchObject({
      field: 'body.details.phoneNumber',
    })
  })

  test('temporary recipients stay out of the address book until saved for good', async () => {
    const address = '0x0000000000000000000000000000000000000abc'
    const temp = (await (
      await post({ type: 'crypto_address', details: { chain: 'ethereum', address }, isTemporary: true })
    ).json()) as Body
    expect(temp.data.isTemporary).toBe(true)
    const ids = async (query: string) =>
      (
        (await (await h.request(`/api/v1/recipients?size=100${query}`)).json()) as { data: { id: string }[] }
      ).data.map((r) => r.id)
    expect(await ids('')).not.toContain(temp.data.id)
    expect(await ids('&scope=temporary')).toEqual([temp.data.id])
    expect(await ids('&scope=all')).toContain(temp.data.id)
    const saved = await post({ type: 'crypto_address', details: { chain: 'ethereum', address } })
    expect(saved.status).toBe(200)
    const body = (await saved.json()) as Body
    expect(body.data).toMatchObject({ id: temp.data.id, isTemporary: false })
    expect(await ids('')).toContain(temp.data.id)
  })

  test('list filters: type, search over holder, institution and label, linked customer; pagination meta', async () => {
    const customer = 'cus_payouts_test'
    const now = new Date()
    await h.deps.db
      .insertInto('customers')
      .values({
        id: customer,
        merchant_id: h.a.id,
        environment: 'test',
        email: 'c@example.com',
        created_at: now,
        updated_at: now,
      })
      .execute()
    const linked = (await (
      await post({
        type: 'crypto_address',
        details: { chain: 'base', address: '0x0000000000000000000000000000000000000def' },
        customerId: customer,
        label: 'Supplier Zeta',
      })
    ).json()) as Body
    expect(linked.data.customerId).toBe(customer)
    expect(
      (
        await post({
          type: 'crypto_address',
          details: { chain: 'base', address: baseAddress.replace('8', '9') },
          customerId: 'cus_nope',
        })
      ).status,
    ).toBe(400)

    const list = async (query: string) =>
      (await (await h.request(`/api/v1/recipients${query}`)).json()) as {
        data: Body['data'][]
        meta: { total: number; totalPages: number; size: number }
      }
    expect((await list(`?customerId=${customer}`)).data.map((r) => r.id)).toEqual([linked.data.id])
    expect((await list('?search=zeta')).data.map((r) => r.id)).toEqual([linked.data.id])
    expect(
      (await list(`?search=${encodeURIComponent(sandboxPayoutHolder.toLowerCase())}`)).data,
    ).toHaveLength(1)
    expect((await list('?search=m-pesa')).data.map((r) => r.type)).toEqual(['kes_mobile_money'])
    const gtbank = (await list('?search=guaranty%20trust')).data
    expect(gtbank.length).toBeGreaterThan(0)
    expect(gtbank.every((r) => r.type === 'ngn_bank_account')).toBe(true)
    expect((await list('?search=%25')).data).toHaveLength(0)
    const crypto = await list('?type=crypto_address&size=2')
    expect(crypto.data.every((r) => r.type === 'crypto_address')).toBe(true)
    expect(crypto.meta).toMatchObject({ size: 2, total: 4, totalPages: 2 })
  })

  test('PATCH changes label, default (one per type), trusted and notes; "" clears notes', async () => {
    const all = (
      (await (await h.request('/api/v1/recipients?type=crypto_address&size=100')).json()) as {
        data: { id: string }[]
      }
    ).data
    const [first, second] = all.map((r) => r.id)
    const patch = (id: string | undefined, json: unknown) =>
      h.request(`/api/v1/recipients/${id}`, { method: 'PATCH', json })
    const one = (await (
      await patch(first, { isDefault: true, isTrusted: true, notes: 'pays invoices', label: 'Main' })
    ).json()) as Body
    expect(one.data).toMatchObject({
      isDefault: true,
      isTrusted: true,
      notes: 'pays invoices',
      label: 'Main',
    })
    const two = (await (await patch(second, { isDefault: true })).json()) as Body
    expect(two.data.isDefault).toBe(true)
    const firstAgain = (await (await h.request(`/api/v1/recipients/${first}`)).json()) as Body
    expect(firstAgain.data).toMatchObject({ isDefault: false, isTrusted: true, label: 'Main' })
    expect(((await (await patch(first, { notes: '' })).json()) as Body).data.notes).toBeNull()
    expect((await h.request('/api/v1/recipients?search=main')).status).toBe(200)
    expect(
      ((await (await h.request('/api/v1/recipients?search=main')).json()) as { data: unknown[] }).data,
    ).toHaveLength(1)

    const temp = (await (
      await post({
        type: 'crypto_address',
        details: { chain: 'base', address: '0x00000000000000000000000000000000000000aa' },
        isTemporary: true,
      })
    ).json()) as Body
    expect((await patch(temp.data.id as string, { isDefault: true })).status).toBe(400)
    expect((await patch(first, {})).status).toBe(400)
    expect((await patch(first, { isVip: true })).status).toBe(400)
    expect((await patch('rcp_missing', { label: 'x' })).status).toBe(404)
  })

  test('DELETE removes from the address book; a second delete is 404', async () => {
    const created = (await (
      await post({
        type: 'crypto_address',
        details: { chain: 'base', address: '0x00000000000000000000000000000000000000dd' },
      })
    ).json()) as Body
    const id = created.data.id as string
    const res = await h.request(`/api/v1/recipients/${id}`, { method: 'DELETE' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as Body).data).toEqual({ success: true })
    expect((await h.request(`/api/v1/recipients/${id}`)).status).toBe(404)
    expect((await h.request(`/api/v1/recipients/${id}`, { method: 'DELETE' })).status).toBe(404)
    // Deleted destinations can be saved again as a new recipient.
    const again = await post({
      type: 'crypto_address',
      details: { chain: 'base', address: '0x00000000000000000000000000000000000000dd' },
    })
    expect(again.status).toBe(201)
  })

  test('validate resolves without saving; a bank account under another name is valid: false', async () => {
    const before = await count()
    const validate = (json: unknown) => h.request('/api/v1/recipients/validate', { method: 'POST', json })
    const crypto = (await (
      await validate({ type: 'crypto_address', details: { chain: 'base', address: baseAddress } })
    ).json()) as { data: unknown }
    expect(crypto.data).toEqual({
      valid: true,
      type: 'crypto_address',
      resolved: { chain: 'base', address: baseAddress },
      reason: null,
    })
    const bank = await validate({
      type: 'ngn_bank_account',
      details: { accountNumber: '0234567890', bankCode: '058' },
    })
    expect(bank.status).toBe(200)
    const text = await bank.text()
    expect(text).not.toContain('0234567890')
    expect(JSON.parse(text).data).toMatchObject({
      valid: false,
      resolved: { accountName: sandboxAccountName('0234567890'), accountNumber: '******7890' },
    })
    expect(
      (await validate({ type: 'crypto_address', details: { chain: 'base', address: 'nope' } })).status,
    ).toBe(400)
    expect(await count()).toBe(before)
  })

  test('isolation: another merchant and the live environment see none of these recipients', async () => {
    const mine = ((await (await h.request('/api/v1/recipients?size=1')).json()) as { data: { id: string }[] })
      .data[0]?.id
    expect(mine).toBeDefined()
    for (const key of [h.b.testKey, h.a.liveKey]) {
      const list = (await (await h.request('/api/v1/recipients?scope=all&size=100', { key })).json()) as {
        data: { type: string; details: { accountNumber?: string } }[]
      }
      // B sees only the one bank account it saved itself.
      expect(list.data.map((r) => r.details.accountNumber)).toEqual(key === h.b.testKey ? ['******8901'] : [])
      expect((await h.request(`/api/v1/recipients/${mine}`, { key })).status).toBe(404)
      expect(
        (await h.request(`/api/v1/recipients/${mine}`, { key, method: 'PATCH', json: { label: 'x' } }))
          .status,
      ).toBe(404)
      expect((await h.request(`/api/v1/recipients/${mine}`, { key, method: 'DELETE' })).status).toBe(404)
    }
    expect((await h.request(`/api/v1/recipients/${mine}`)).status).toBe(200)
  })

  test('401 without a key on every recipients route', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/recipients'],
      ['POST', '/api/v1/recipients'],
      ['POST', '/api/v1/recipients/validate'],
      ['GET', '/api/v1/recipients/rcp_x'],
      ['PATCH', '/api/v1/recipients/rcp_x'],
      ['DELETE', '/api/v1/recipients/rcp_x'],
    ] as const) {
      const json = method === 'GET' || method === 'DELETE' ? {} : { json: {} }
      expect((await h.request(path, { method, key: null, ...json })).status, `${method} ${path}`).toBe(401)
    }
  })
})
