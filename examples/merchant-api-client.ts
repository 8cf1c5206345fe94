import { createTollgateClient } from '@tollgate/client'

// The sandbox's URL and key (npm start prints both), or your server's and a sk_live_ key.
const client = createTollgateClient({
  baseUrl: process.env.TOLLGATE_URL ?? 'http://127.0.0.1:4020',
  apiKey: process.env.TOLLGATE_API_KEY ?? '',
})

// Paths, bodies and answers are typed from the API's OpenAPI document.
const created = await client.POST('/api/v1/payments', {
  body: { title: 'Order 42', amount: '25.00', currency: 'USD' },
})
if (created.error) {
  throw new Error(`${created.error.error.code}: ${created.error.message}`)
}
const { reference, url } = created.data.data

const { data } = await client.GET('/api/v1/payments/reference/{reference}', {
  params: { path: { reference } },
})
console.log(JSON.stringify({ reference, checkout: url, amount: data?.data.amount }))
