import { createPublicClient, type Hex, http } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { signX402Payment } from '../testing/x402-payment.js'

type X402Tx = { txHash: string; status: string; blockNumber: number | null }

let fixture: BaseDevnetFacilitator
beforeAll(async () => {
  fixture = await startBaseDevnetFacilitator()
})
afterAll(async () => {
  await fixture?.stop()
})

// Spec "x402 transaction": `blockNumber` (number), on POST /x402/settle, GET /x402/transactions and
// GET /x402/transactions/{txHash}: the block the settled transaction landed in.
describeEachDatabase('x402 transaction blockNumber (spec "x402 transaction")', (getDb) => {
  let h: Harness
  let payerKey: Hex
  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator: fixture.facilitator,
      rails: (base) => createRails(base, { networks: fixture.devnet.networks }),
    })
    payerKey = fixture.devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
      ?.privateKey as Hex
  })

  test('a settled payment carries the block of its receipt, in every answer', async () => {
    const json = await signX402Payment(h, payerKey)
    const settled = await h.request('/api/v1/x402/settle', { method: 'POST', json })
    expect(settled.status).toBe(201)
    const tx = ((await settled.json()) as { data: X402Tx }).data
    expect(tx.status).toBe('confirmed')
    const rpcUrl = fixture.devnet.networks['eip155:84532']?.rpcUrl as string
    const receipt = await createPublicClient({ transport: http(rpcUrl) }).getTransactionReceipt({
      hash: tx.txHash as Hex,
    })
    expect(typeof tx.blockNumber).toBe('number')
    expect(tx.blockNumber).toBe(Number(receipt.blockNumber))

    const list = (await (await h.request('/api/v1/x402/transactions')).json()) as { data: X402Tx[] }
    expect(list.data.find((row) => row.txHash === tx.txHash)?.blockNumber).toBe(tx.blockNumber)
    const one = (await (await h.request(`/api/v1/x402/transactions/${tx.txHash}`)).json()) as { data: X402Tx }
    expect(one.data.blockNumber).toBe(tx.blockNumber)
  })
})
