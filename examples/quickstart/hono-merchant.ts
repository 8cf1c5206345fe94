import { serve } from '@hono/node-server'
import { type PaymentVariables, paymentRequired } from '@tollgate/middleware'
import { Hono } from 'hono'

const app = new Hono<{ Variables: PaymentVariables }>()
app.use(
  paymentRequired({
    facilitator: process.env['FACILITATOR_URL'] ?? 'http://127.0.0.1:4022',
    payTo: { evm: process.env['PAY_TO'] ?? '0x000000000000000000000000000000000000bEEF' },
    routes: {
      'GET /weather': {
        price: '$0.01',
        description: 'Current weather',
        accepts: [{ scheme: 'eip3009', network: 'eip155:84532' }], // USDC on Base Sepolia
      },
    },
  }),
)
app.get('/weather', (c) => c.json({ sunny: true, paidBy: c.get('payment').payer }))

serve({ fetch: app.fetch, port: Number(process.env['PORT'] ?? 3000) }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`)
})
