import { getPaymentReceipt, wrapFetch } from '@tollgate/agent'

// Pays 402 answers with USDC from this key, within the policy's limits.
const payingFetch = wrapFetch(fetch, {
  wallets: { evm: process.env['PAYER_PRIVATE_KEY'] as `0x${string}` },
  policy: { maxPerPayment: '$0.05', maxPerDay: '$1' },
})

const response = await payingFetch(process.env['API_URL'] ?? 'http://127.0.0.1:3000/weather')
console.log(response.status, await response.json())
console.log('receipt', JSON.stringify(getPaymentReceipt(response)))
