import { beforeAll, describe, expect, test } from 'vitest'
import type { InboundFiatTransfer } from '../rails/types.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

type Envelope<T> = {
  success: boolean
  message: string
  data: T
  error?: { code: string; details?: { field: string }[] }
}

describeEachDatabase('sandbox fiat and FX routes', (getDb) => {
  let h: Harness
  const inbound: InboundFiatTransfer[] = []
  beforeAll(async () => {
    h = await createHarness(getDb())
    h.deps.rails.virtualAccounts.onInboundTransfer(async (_db, transfer) => {
      inbound.push(transfer)
    })
  })
  const json = async <T>(res: Response) => (await res.json()) as Envelope<T>
  const countRows = async (
    table: 'sandbox_fx_rates' | 'sandbox_inbound_transfers' | 'sandbox_fiat_transfers',
  ) =>
    Number(
      (
        await h.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )

  // Each body is a 400 validation_error whose details name `field`.
  const expectValidationErrors = async (
    send: (body: unknown) => Promise<Response>,
    cases: [unknown, string][],
  ) => {
    for (const [body, field] of cases) {
      const res = await send(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      const error = (await json(res)).error
      expect(error?.code).toBe('validation_error')
      expect(
        error?.details?.map((d) => d.field),
        JSON.stringify(body),
      ).toContain(field)
    }
  }

  describe('PUT /sandbox/fx-rates', () => {
    const put = (body: unknown, key?: string) =>
      h.request('/api/v1/sandbox/fx-rates', {
        method: 'PUT',
        json: body,
        ...(key === undefined ? {} : { key }),
      })

    test('default: sets mid rates and answers the house rates both ways; later quotes use them', async () => {
      const res = await put({ rates: [{ from: 'USD', to: 'KES', rate: '130', spreadBps: 100 }] })
      expect(res.status).toBe(200)
      const body =
        await json<{ fromCurrency: string; toCurrency: string; rate: string; timestamp: string }[]>(res)
      expect(body.data).toEqual([
        { fromCurrency: 'USD', toCurrency: 'KES', rate: '128.70000000', timestamp: expect.any(String) },
        { fromCurrency: 'KES', toCurrency: 'USD', rate: '0.00761538', timestamp: expect.any(String) },
      ])
      expect((await h.deps.rails.fx.getRate('USDT', 'KES')).rate).toBe('128.57000000')
    })

    test('behavior: 404 for live keys, 401 without a key, 400 for bad rates; nothing written', async () => {
      const before = await countRows('sandbox_fx_rates')
      const valid = { rates: [{ from: 'USD', to: 'NGN', rate: '1' }] }
      const live = await put(valid, h.a.liveKey)
      expect(live.status).toBe(404)
      expect(await live.json()).toMatchObject({ error: { code: 'not_found' } })
      expect(
        (await h.request('/api/v1/sandbox/fx-rates', { method: 'PUT', key: null, json: valid })).status,
      ).toBe(401)
      const cases: [unknown, string][] = [
        [{ rates: [] }, 'body.rates'],
        [{ rates: [{ from: 'NGN', to: 'KES', rate: '0.08' }] }, 'body.rates.0.from'],
        [{ rates: [{ from: 'USD', to: 'USD', rate: '1' }] }, 'body.rates.0.from'],
        [{ rates: [{ from: 'USD', to: 'XYZ', rate: '1' }] }, 'body.rates.0.to'],
        [{ rates: [{ from: 'USD', to: 'NGN', rate: '0' }] }, 'body.rates.0.rate'],
        [{ rates: [{ from: 'USD', to: 'NGN', rate: 1550 }] }, 'body.rates.0.rate'],
        [{ rates: [{ from: 'USD', to: 'NGN', rate: '1e3' }] }, 'body.rates.0.rate'],
        [{ rates: [{ from: 'USD', to: 'NGN', rate: '1550', spreadBps: 5000 }] }, 'body.rates.0.spreadBps'],
        [{ rates: [{ from: 'USD', to: 'NGN', rate: '1550', spreadBps: 1.5 }] }, 'body.rates.0.spreadBps'],
      ]
      await expectValidationErrors(put, cases)
      expect(await countRows('sandbox_fx_rates')).toBe(before)
      expect((await h.deps.rails.fx.getRate('USD', 'NGN')).rate).toBe('1542.25000000')
    })
  })

  describe('POST /sandbox/ngn-transfers', () => {
    let accountNumber: string
    beforeAll(async () => {
      const account = await h.deps.rails.virtualAccounts.create({
        id: 'dai_route_test',
        bvn: '22123456789',
        accountName: 'Merchant A / Ada',
        merchantId: h.a.id,
        environment: 'test',
      })
      accountNumber = account.accountNumber
    })
    const post = (body: unknown, key?: string) =>
      h.request('/api/v1/sandbox/ngn-transfers', {
        method: 'POST',
        json: body,
        ...(key === undefined ? {} : { key }),
      })

    test('default: the transfer is received once per reference and delivered to the subscribers once', async () => {
      const body = {
        accountNumber,
        amount: '2500.5',
        reference: 'NIP-0001',
        payer: { accountName: 'CHINEDU OKAFOR', bankCode: '033' },
      }
      const first = await post(body)
      expect(first.status).toBe(200)
      const data = (await json<Record<string, unknown>>(first)).data
      expect(data).toEqual({
        id: expect.any(String),
        accountNumber,
        accountReference: 'dai_route_test',
        amount: '2500.50',
        currency: 'NGN',
        reference: 'NIP-0001',
        payer: {
          accountName: 'CHINEDU OKAFOR',
          accountNumber: '0123456789',
          bankName: 'United Bank For Africa',
          bankCode: '033',
        },
        receivedAt: expect.any(String),
        delivered: true,
      })
      const again = await json<Record<string, unknown>>(await post(body))
      expect(again.data).toEqual({ ...data, delivered: false })
      expect(inbound.filter((t) => t.reference === 'NIP-0001')).toHaveLength(1)
      expect(inbound.find((t) => t.reference === 'NIP-0001')?.amount).toBe(250_050n)
    })

    test("behavior: 404 for live keys, another merchant's account and unknown numbers; 400 for bad bodies", async () => {
      const before = await countRows('sandbox_inbound_transfers')
      const valid = { accountNumber, amount: '10' }
      for (const [body, key] of [
        [valid, h.a.liveKey],
        [valid, h.b.testKey],
        [{ ...valid, accountNumber: '9999999999' }, undefined],
      ] as const) {
        const res = await post(body, key)
        expect(res.status).toBe(404)
        expect(await res.json()).toMatchObject({ error: { code: 'not_found' } })
      }
      const cases: [unknown, string][] = [
        [{ accountNumber, amount: 10 }, 'body.amount'],
        [{ accountNumber, amount: '0' }, 'body.amount'],
        [{ accountNumber, amount: '1.001' }, 'body.amount'],
        [{ accountNumber, amount: '-5' }, 'body.amount'],
        [{ accountNumber: '12345', amount: '5' }, 'body.accountNumber'],
        [{ amount: '5' }, 'body.accountNumber'],
        [{ accountNumber, amount: '5', payer: { accountNumber: 'abc' } }, 'body.payer.accountNumber'],
      ]
      await expectValidationErrors(post, cases)
      const unknownBank = await post({ accountNumber, amount: '5', payer: { bankCode: '999' } })
      expect(unknownBank.status).toBe(400)
      expect(await unknownBank.json()).toMatchObject({
        error: { code: 'validation_error', param: 'payer.bankCode' },
      })
      expect(await countRows('sandbox_inbound_transfers')).toBe(before)
    })
  })

  describe('POST /sandbox/provider-callbacks/{transferId}', () => {
    const fire = (id: string, body: unknown, key?: string) =>
      h.request(`/api/v1/sandbox/provider-callbacks/${id}`, {
        method: 'POST',
        json: body,
        ...(key === undefined ? {} : { key }),
      })

    test('default: fires the held callback once; a second is 409 transfer_already_completed', async () => {
      const account = await h.deps.rails.banks.resolveAccount({
        accountNumber: '0123451111',
        bankCode: '058',
      })
      await h.deps.rails.banks.transfer({
        id: 'po_held_1',
        amount: 5_000n,
        currency: 'NGN',
        account,
        narration: 'held',
        merchantId: h.a.id,
      })
      const updates: string[] = []
      const unsubscribe = h.deps.rails.banks.onTransferUpdate(async (_db, t) => {
        updates.push(`${t.id}:${t.status}`)
      })
      // Another merchant and live keys do not see the transfer.
      expect((await fire('po_held_1', { outcome: 'success' }, h.b.testKey)).status).toBe(404)
      expect((await fire('po_held_1', { outcome: 'success' }, h.a.liveKey)).status).toBe(404)
      const res = await fire('po_held_1', { outcome: 'failed', failureReason: 'Beneficiary bank offline' })
      expect(res.status).toBe(200)
      expect((await json(res)).data).toEqual({
        id: 'po_held_1',
        providerReference: expect.any(String),
        status: 'failed',
        failureReason: 'Beneficiary bank offline',
      })
      const again = await fire('po_held_1', { outcome: 'success' })
      expect(again.status).toBe(409)
      expect(await again.json()).toMatchObject({ error: { code: 'transfer_already_completed' } })
      expect(updates).toEqual(['po_held_1:failed'])
      unsubscribe()
    })

    test('behavior: unknown transfers are 404; bad outcomes are 400; nothing changes', async () => {
      const unknown = await fire('po_nope', { outcome: 'success' })
      expect(unknown.status).toBe(404)
      expect(await unknown.json()).toMatchObject({ error: { code: 'not_found' } })
      for (const body of [{}, { outcome: 'done' }, { outcome: 'failed', failureReason: '' }]) {
        const res = await fire('po_held_1', body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(await res.json()).toMatchObject({ error: { code: 'validation_error' } })
      }
    })
  })
})
