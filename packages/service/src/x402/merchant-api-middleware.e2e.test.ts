import { getPaymentReceipt, wrapFetch } from '@tollgate/agent'
import { createAssetRegistry } from '@tollgate/core'
import { toViemChain } from '@tollgate/devnet'
import { getDevnetAssets } from '@tollgate/facilitator/devnet'
import { createMerchantApiX402, paymentRequired } from '@tollgate/middleware'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { wrapFetchWithPayment as wrapFetchV2, x402Client } from '@x402/fetch'
import { Hono } from 'hono'
import { createPublicClient, type Hex, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { createRails } from '../rails/create-rails.js'
import { type BaseDevnetFacilitator, startBaseDevnetFacilitator } from '../testing/base-devnet-facilitator.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

// The spec's 402 flow end to end: a merchant's hono app charges through the merchant API
// (createMerchantApiX402), and our agent, the official @x402/fetch (v2) and the legacy x402-fetch
// (v1) pay it on a Base Sepolia devnet; the income lands in the merchant's Tollgate balance.
let fixture: BaseDevnetFacilitator
let devnet: BaseDevnetFacilitator['devnet']
let facilitator: BaseDevnetFacilitator['facilitator']
beforeAll(async () => {
  fixture = await startBaseDevnetFacilitator()
  ;({ devnet, facilitator } = fixture)
})
afterAll(async () => {
  await fixture?.stop()
})

describeEachDatabase('merchant API x402 mode of the middleware', (getDb) => {
  let h: Harness
  let shop: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>
  const payerKey = (index: number) =>
    devnet.wallets.filter((w) => w.network === 'eip155:84532' && w.role === 'payer')[index]?.privateKey as Hex
  const usdcBalance = async () => {
    const res = await h.request('/api/v1/balance')
    const data = ((await res.json()) as { data: { currency: string; available: string }[] }).data
    return data.find((b) => b.currency === 'USDC')?.available ?? '0'
  }
  const x402Count = async () =>
    (await h.deps.db.selectFrom('x402_transactions').select('id').execute()).length

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator,
      rails: (base) => createRails(base, { networks: devnet.networks }),
    })
    const x402 = await createMerchantApiX402({
      apiUrl: 'http://merchant-api.test/api/v1',
      apiKey: h.a.testKey,
      accept: [{ chain: 'base', asset: 'USDC' }],
      fetch: (input, init) => Promise.resolve(h.app.request(new Request(input, init))),
    })
    const app = new Hono()
    app.use('/report', paymentRequired({ ...x402, routes: { price: '$0.01', accepts: x402.accepts } }))
    app.get('/report', (c) => c.json({ report: 'paid' }))
    shop = (input, init) => Promise.resolve(app.fetch(new Request(input, init)))
  })

  test('default: the 402 offers the merchant x402 address the API chose', async () => {
    const res = await shop('http://shop.test/report')
    expect(res.status).toBe(402)
    const body = (await res.json()) as { accepts: { payTo: string; maxAmountRequired: string }[] }
    const requirements = await h.request('/api/v1/x402/requirements', {
      method: 'POST',
      json: { chain: 'base', asset: 'USDC', amount: '0.01' },
    })
    const payTo = ((await requirements.json()) as { data: { accepts: { payTo: string }[] } }).data.accepts[0]
      ?.payTo
    expect(body.accepts.map((a) => [a.payTo, a.maxAmountRequired])).toContainEqual([payTo, '10000'])
  })

  test('default: our agent pays; the income is in the balance and /x402/transactions', async () => {
    const before = await x402Count()
    const paid = wrapFetch(shop, {
      wallets: { evm: payerKey(0) },
      assets: createAssetRegistry(getDevnetAssets(devnet)),
    })
    const res = await paid('http://shop.test/report')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ report: 'paid' })
    expect(getPaymentReceipt(res)?.success).toBe(true)
    expect(await x402Count()).toBe(before + 1)
    expect(await usdcBalance()).toBe('0.009950')
  })

  test('behavior: the official @x402/fetch (v2) pays the same shop', async () => {
    const network = devnet.networks['eip155:84532']
    if (!network) {
      throw new Error('no Base Sepolia')
    }
    const publicClient = createPublicClient({
      chain: toViemChain(network),
      transport: http(),
      pollingInterval: 50,
    })
    const scheme = new ExactEvmClient(toClientEvmSigner(privateKeyToAccount(payerKey(1)), publicClient))
    const client = new x402Client().register('eip155:84532', scheme)
    const res = await wrapFetchV2(shop, client)('http://shop.test/report')
    expect(res.status).toBe(200)
    expect(await usdcBalance()).toBe('0.019900')
  })

  test('behavior: the legacy x402-fetch (v1) pays the same shop', async () => {
    const signer = await createSigner('base-sepolia', payerKey(2))
    const res = await wrapFetchV1(shop, signer)('http://shop.test/report')
    expect(res.status).toBe(200)
    expect(await usdcBalance()).toBe('0.029850')
  })
})
