import { type PaymentInfo, paymentRequiredExpress } from '@tollgate/middleware'
import express from 'express'

const app = express()
app.use(
  paymentRequiredExpress({
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
app.get('/weather', (_req, res) => {
  const payment = res.locals['payment'] as PaymentInfo
  res.json({ sunny: true, paidBy: payment.payer })
})

const server = app.listen(Number(process.env['PORT'] ?? 3000), () => {
  const address = server.address()
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' ? address?.port : address}`)
})
