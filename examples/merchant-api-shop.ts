// A paid API whose x402 income lands in your Tollgate balance: hono + @tollgate/middleware in the
// mode backed by the merchant API (createMerchantApiX402) instead of a facilitator of its own.
//
//   npm start                                           # terminal 1: the sandbox (writes .tollgate/sandbox.json)
//   node --conditions=tollgate-source --import tsx examples/merchant-api-shop.ts     # terminal 2: this shop on PORT (default 4022)
//   then pay it with a sandbox wallet key:
//   TOLLGATE_EVM_PRIVATE_KEY=0x… npx tollgate pay http://127.0.0.1:4022/report --max 0.01
//   and see the income: curl http://127.0.0.1:4022/income
//
// It reads the API URL and key from the sandbox manifest (SANDBOX_MANIFEST to point elsewhere), asks
// the API for Base USDC offers paying the merchant's x402 address, serves GET /report for $0.01, and
// GET /income lists the x402 income through the typed merchant API client (@tollgate/client).
import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { createTollgateClient } from '@tollgate/client'
import { createMerchantApiX402, type PaymentVariables, paymentRequired } from '@tollgate/middleware'
import { Hono } from 'hono'

const manifestPath = process.env.SANDBOX_MANIFEST ?? '.tollgate/sandbox.json'
const { apiUrl, apiKey } = JSON.parse(await readFile(manifestPath, 'utf8')) as {
  apiUrl: string
  apiKey: string
}

const x402 = await createMerchantApiX402({ apiUrl, apiKey, accept: [{ chain: 'base', asset: 'USDC' }] })
const tollgate = createTollgateClient({ baseUrl: apiUrl, apiKey })
const app = new Hono<{ Variables: PaymentVariables }>()
app.use(
  '/report',
  paymentRequired({
    ...x402,
    routes: {
      price: '$0.01',
      accepts: x402.accepts,
      description: 'A paid report',
      mimeType: 'application/json',
    },
  }),
)
app.get('/report', (c) =>
  c.json({ report: 'Income lands in your Tollgate balance.', payer: c.get('payment').payer }),
)
app.get('/income', async (c) => {
  const { data, error } = await tollgate.GET('/api/v1/x402/transactions')
  if (error) {
    return c.json({ error: error.error.code }, 502)
  }
  return c.json(data.data.map(({ amount, status, payer }) => ({ amount, status, payer })))
})

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 4022), hostname: '127.0.0.1' },
  (info: AddressInfo) => {
    console.log(`merchant-api-shop listening on http://127.0.0.1:${info.port}`)
  },
)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)))
}
