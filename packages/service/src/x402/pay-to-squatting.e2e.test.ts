import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { balanceRows } from '../testing/ledger-fixtures.js'
import { signX402Payment } from '../testing/x402-payment.js'

// Issue 36 item 2 (docs/security.md "Who is credited for an x402 payment"): merchant B names merchant
// A's x402 address as its own payTo and settles A's payment first. Before the fix B's requirements
// were accepted, B's settle sent A's payment and recorded it under B (uncredited), and A's settle of
// its own payment then answered 404: A was never credited.
let fixture: BaseDevnetFacilitator
beforeAll(async () => {
  fixture = await startBaseDevnetFacilitator()
})
afterAll(async () => {
  await fixture?.stop()
})

type Envelope<T> = { success: boolean; data: T; error?: { code: string } }

describeEachDatabase('x402 payTo squatting', (getDb) => {
  let h: Harness
  let payerKey: Hex
  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator: fixture.facilitator,
      rails: (base) => createRails(base, { networks: fixture.devnet.networks }),
    })
    const payer = fixture.devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
    payerKey = payer?.privateKey as Hex
  })
  const post = async <T>(path: string, json: unknown, key: string) => {
    const res = await h.request(`/api/v1${path}`, { method: 'POST', json, key })
    return { status: res.status, body: (await res.json()) as Envelope<T> }
  }

  test("behavior: B cannot use A's x402 address, and A's payment credits A and only A", async () => {
    const request = await signX402Payment(h, payerKey, { key: h.a.testKey })
    const addressOfA = request.paymentRequirements.payTo

    // B names A's address (any casing) in its requirements: refused, nothing remembered.
    for (const payTo of [addressOfA, addressOfA.toLowerCase()]) {
      const named = await post(
        '/x402/requirements',
        { chain: 'base', asset: 'USDC', amount: '0.01', payTo },
        h.b.testKey,
      )
      expect([named.status, named.body.error?.code]).toEqual([400, 'pay_to_not_allowed'])
    }
    // The treasury is a platform address too.
    const treasury = h.deps.rails.crypto.getTreasury('test', 'base')?.address as string
    const platform = await post(
      '/x402/requirements',
      { chain: 'base', asset: 'USDC', amount: '0.01', payTo: treasury },
      h.b.testKey,
    )
    expect([platform.status, platform.body.error?.code]).toEqual([400, 'pay_to_not_allowed'])
    expect(
      await h.deps.db.selectFrom('x402_payees').selectAll().where('merchant_id', '=', h.b.id).execute(),
    ).toEqual([])

    // A payee row an older release let B write for A's address grants nothing either.
    await h.deps.db
      .insertInto('x402_payees')
      .values({
        merchant_id: h.b.id,
        environment: 'test',
        network: 'eip155:84532',
        address: addressOfA,
        created_at: new Date(),
      })
      .execute()
    const verified = await post<{ isValid: boolean; invalidReason: string }>(
      '/x402/verify',
      request,
      h.b.testKey,
    )
    expect(verified.body.data).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_pay_to_not_merchant_address',
    })
    const squatted = await post('/x402/settle', request, h.b.testKey)
    expect([squatted.status, squatted.body.error?.code]).toEqual([400, 'pay_to_not_allowed'])

    // A settles its own payment: recorded for A and credited to A, net of the fee.
    const settled = await post<{ txHash: string; status: string }>('/x402/settle', request, h.a.testKey)
    expect([settled.status, settled.body.data.status]).toEqual([201, 'confirmed'])
    const rows = await h.deps.db
      .selectFrom('x402_transactions')
      .select(['merchant_id', 'credited'])
      .where('tx_hash', '=', settled.body.data.txHash)
      .execute()
    expect(rows).toEqual([{ merchant_id: h.a.id, credited: true }])
    expect((await balanceRows(h.deps.db, h.a.id, 'x402')).map((r) => r.amount)).toEqual(['9950'])
    expect(await balanceRows(h.deps.db, h.b.id, 'x402')).toEqual([])
    const fromB = await h.request(`/api/v1/x402/transactions/${settled.body.data.txHash}`, {
      key: h.b.testKey,
    })
    expect(fromB.status).toBe(404)
  })
})
