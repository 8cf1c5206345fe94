import { randomBytes } from 'node:crypto'
import type { FacilitatorClient, SettleResponse } from '@tollgate/core'
import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { balanceRows } from '../testing/ledger-fixtures.js'
import { signX402Payment } from '../testing/x402-payment.js'
import { registerX402Handlers } from './credit-confirmed-x402.js'

// Issue 36 item 4 (docs/security.md "Who is credited for an x402 payment"): the credit of
// POST /x402/settle follows the chain, not the facilitator's HTTP answer. Before the fix a
// facilitator answering `success: true` with any transaction hash credited the merchant.
let fixture: BaseDevnetFacilitator
beforeAll(async () => {
  fixture = await startBaseDevnetFacilitator()
})
afterAll(async () => {
  await fixture?.stop()
})

type Envelope<T> = { success: boolean; data: T; error?: { code: string; details?: { errorReason?: string } } }
const payerKeyOf = () =>
  fixture.devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')?.privateKey as Hex

describeEachDatabase('x402 settle verified on chain', (getDb) => {
  let h: Harness
  // When set, the facilitator answers this instead of settling (a compromised or spoofed facilitator).
  let forged: ((network: string) => SettleResponse) | undefined
  const client: FacilitatorClient = {
    verify: (request) => fixture.facilitator.verify(request),
    getSupported: () => fixture.facilitator.getSupported(),
    settle: async (request, options) =>
      forged ? forged(request.paymentRequirements.network) : fixture.facilitator.settle(request, options),
  }
  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator: client,
      rails: (base) => createRails(base, { networks: fixture.devnet.networks }),
    })
  })
  const settle = async (json: unknown, key: string) => {
    const res = await h.request('/api/v1/x402/settle', { method: 'POST', json, key })
    return { status: res.status, body: (await res.json()) as Envelope<{ txHash: string; status: string }> }
  }

  test('behavior: a forged success (made-up, unrelated or malformed hash) credits nothing; a real settle credits once', async () => {
    // A real payment to merchant B gives a real transaction that pays someone else.
    const paidToB = await settle(await signX402Payment(h, payerKeyOf(), { key: h.b.testKey }), h.b.testKey)
    expect(paidToB.status).toBe(201)
    const hashes = [`0x${randomBytes(32).toString('hex')}`, paidToB.body.data.txHash, 'not-a-hash']
    for (const transaction of hashes) {
      forged = (network) => ({
        success: true,
        transaction,
        network: network as never,
        payer: `0x${'1'.repeat(40)}`,
      })
      const answer = await settle(await signX402Payment(h, payerKeyOf(), { key: h.a.testKey }), h.a.testKey)
      forged = undefined
      expect(
        [answer.status, answer.body.error?.code, answer.body.error?.details?.errorReason],
        transaction,
      ).toEqual([502, 'settlement_unverified', 'transfer_not_on_chain'])
    }
    const rowsOfA = await h.deps.db
      .selectFrom('x402_transactions')
      .select('id')
      .where('merchant_id', '=', h.a.id)
      .execute()
    expect(rowsOfA).toEqual([])
    expect(await balanceRows(h.deps.db, h.a.id, 'x402')).toEqual([])

    const real = await settle(await signX402Payment(h, payerKeyOf(), { key: h.a.testKey }), h.a.testKey)
    expect([real.status, real.body.data.status]).toEqual([201, 'confirmed'])
    expect((await balanceRows(h.deps.db, h.a.id, 'x402')).map((r) => r.amount)).toEqual(['9950'])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })
})

describeEachDatabase('x402 settle below the confirmation count', (getDb) => {
  let h: Harness
  let unsubscribe: () => void
  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator: fixture.facilitator,
      // Base needs 3 confirmations here (1 in the sandbox), as on a live chain.
      rails: (base) =>
        createRails(base, { networks: fixture.devnet.networks, confirmations: { test: { base: 3 } } }),
    })
    unsubscribe = registerX402Handlers(h.deps)
  })
  afterAll(() => unsubscribe?.())

  test('behavior: a settled transfer below the count is pending and credited once when the chain confirms it', async () => {
    const json = await signX402Payment(h, payerKeyOf(), { key: h.a.testKey })
    const res = await h.request('/api/v1/x402/settle', { method: 'POST', json, key: h.a.testKey })
    const body = (await res.json()) as Envelope<{ txHash: string; status: string }>
    expect([res.status, body.data.status]).toEqual([201, 'pending'])
    expect(await balanceRows(h.deps.db, h.a.id, 'x402')).toEqual([])

    // Two more blocks, then the watchers' recording path reports the transfer confirmed.
    const rpcUrl = fixture.devnet.networks['eip155:84532']?.rpcUrl as string
    await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x2'] }),
    })
    const txHash = body.data.txHash
    const recorded = await h.deps.rails.incoming.recordTransaction({
      environment: 'test',
      chain: 'base',
      txHash,
    })
    expect(recorded.map((t) => t.status)).toEqual(['confirmed'])
    await h.deps.rails.incoming.recordTransaction({ environment: 'test', chain: 'base', txHash })
    expect((await balanceRows(h.deps.db, h.a.id, 'x402')).map((r) => r.amount)).toEqual(['9950'])
    const one = await h.request(`/api/v1/x402/transactions/${txHash}`, { key: h.a.testKey })
    expect(((await one.json()) as Envelope<{ status: string }>).data.status).toBe('confirmed')
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })
})
