import { isAppError } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import type { PolicyRule } from './errors.js'
import { createMemorySpendLedger } from './spend-ledger.js'
import {
  createFakeClient,
  createFakeServer,
  createOffer,
  EVM_PAYER,
  MERCHANT,
  readPaymentHeader,
  usdcBaseSepolia,
  usdcSolanaDevnet,
  usdtBscTestnet,
} from './testing/fakes.js'
import type { PaymentRecord, SpendPolicy } from './types.js'
import { getPaymentReceipt, getPaymentRecord, wrapFetch } from './wrap-fetch.js'

const URL = 'https://api.test/weather'

function evmClients() {
  return [createFakeClient('eip3009', ['eip155:84532']), createFakeClient('permit2', ['eip155:97'])]
}

async function refusal(run: () => Promise<unknown>): Promise<{ code: string; rule?: PolicyRule }> {
  try {
    await run()
  } catch (error) {
    if (isAppError(error)) {
      return {
        code: error.code,
        ...(isAppError(error, 'payment_policy_refused') ? { rule: error.context.rule } : {}),
      }
    }
    throw error
  }
  throw new Error('expected a refusal')
}

describe('wrapFetch', () => {
  test('default: pays the cheapest payable option in USD terms and exposes the receipt', async () => {
    const server = createFakeServer(createOffer([usdcBaseSepolia, usdtBscTestnet, usdcSolanaDevnet]))
    const clients = evmClients()
    const records: PaymentRecord[] = []
    const pay = wrapFetch(server.fetch, { clients, onPayment: (r) => records.push(r) })
    const response = await pay(URL)
    expect(response.status).toBe(200)
    // 0.005 USDT (18 decimals) is cheaper than 0.01 USDC (6 decimals); Solana has no key.
    expect(clients[1]?.signed).toEqual([usdtBscTestnet])
    expect(clients[0]?.signed).toEqual([])
    const sent = readPaymentHeader(server.requests[1])
    expect(sent).toEqual({
      x402Version: 2,
      resource: { url: 'https://api.test/weather' },
      accepted: usdtBscTestnet,
      payload: { signature: '0xfake', from: EVM_PAYER },
    })
    expect(getPaymentReceipt(response)).toEqual({
      success: true,
      transaction: '0xtx',
      network: 'eip155:84532',
      payer: EVM_PAYER,
    })
    expect(getPaymentRecord(response)).toMatchObject({ usd: '0.005', scheme: 'permit2', status: 200 })
    expect(records).toHaveLength(1)
  })

  test('behavior: a v1 server gets X-PAYMENT with its v1 network name', async () => {
    const server = createFakeServer({
      x402Version: 1,
      accepts: [
        {
          scheme: 'exact',
          network: 'base-sepolia',
          maxAmountRequired: '10000',
          resource: URL,
          description: 'weather',
          mimeType: 'application/json',
          payTo: MERCHANT,
          maxTimeoutSeconds: 60,
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          extra: { name: 'USDC', version: '2' },
        },
      ],
    })
    const clients = evmClients()
    const response = await wrapFetch(server.fetch, { clients })(URL)
    expect(response.status).toBe(200)
    expect(server.requests[1]?.headers.get('PAYMENT-SIGNATURE')).toBeNull()
    expect(readPaymentHeader(server.requests[1])).toEqual({
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
      payload: { signature: '0xfake', from: EVM_PAYER },
    })
    expect(clients[0]?.signed[0]?.network).toBe('eip155:84532')
    expect(getPaymentReceipt(response)?.transaction).toBe('0xtx')
  })

  test('behavior: responses other than 402 pass through untouched', async () => {
    const clients = evmClients()
    const pay = wrapFetch(async () => new Response('hello', { status: 200 }), { clients })
    expect(await (await pay(URL)).text()).toBe('hello')
    expect(clients[0]?.signed).toEqual([])
  })

  test('behavior: retries exactly once and never pays twice', async () => {
    const server = createFakeServer(createOffer([usdcBaseSepolia]), { alwaysRequire: true })
    const clients = evmClients()
    const response = await wrapFetch(server.fetch, { clients })(URL)
    expect(response.status).toBe(402)
    expect(server.requests).toHaveLength(2)
    expect(clients[0]?.signed).toHaveLength(1)
  })

  test('behavior: a request that already carries a payment is never paid again', async () => {
    const server = createFakeServer(createOffer([usdcBaseSepolia]), { alwaysRequire: true })
    const clients = evmClients()
    const pay = wrapFetch(server.fetch, { clients })
    expect(await refusal(() => pay(URL, { headers: { 'X-PAYMENT': 'abc' } }))).toEqual({
      code: 'payment_already_attempted',
    })
    expect(server.requests).toHaveLength(1)
    expect(clients[0]?.signed).toHaveLength(0)
  })

  test('behavior: the request body is sent again with the payment', async () => {
    const server = createFakeServer(createOffer([usdcBaseSepolia]))
    await wrapFetch(server.fetch, { clients: evmClients() })(URL, { method: 'POST', body: '{"q":1}' })
    expect(server.bodies).toEqual(['{"q":1}', '{"q":1}'])
    expect(server.requests[1]?.method).toBe('POST')
  })

  test.each([
    ['host', { allowedHosts: ['other.test', '*.example.com'] }],
    ['network', { allowedNetworks: ['eip155:8453', 'solana:*'] }],
    ['asset', { allowedAssets: ['USDT'] }],
    ['payee', { allowedPayees: ['0x3333333333333333333333333333333333333333'] }],
    ['max_per_payment', { maxPerPayment: '$0.009' }],
    ['approval', { approve: () => false }],
  ] as [PolicyRule, SpendPolicy][])(
    'behavior: policy rule %s refuses and signs nothing',
    async (rule, policy) => {
      const server = createFakeServer(createOffer([usdcBaseSepolia]))
      const clients = evmClients()
      expect(await refusal(() => wrapFetch(server.fetch, { clients, policy })(URL))).toEqual({
        code: 'payment_policy_refused',
        rule,
      })
      expect(clients[0]?.signed).toHaveLength(0)
      expect(server.requests).toHaveLength(1)
    },
  )

  test.each([
    [{ allowedHosts: ['api.test'] }],
    [{ allowedHosts: ['*.test'] }],
    [{ allowedHosts: ['API.TEST:443'] }],
    [{ allowedNetworks: ['base-sepolia'] }],
    [{ allowedNetworks: ['eip155:*'] }],
    [{ allowedAssets: ['usdc'] }],
    [{ allowedAssets: ['0x036cbd53842c5426634e7929541ec2318f3dcf7e'] }],
    [{ allowedPayees: [MERCHANT.toUpperCase().replace('0X', '0x')] }],
    [{ maxPerPayment: 0.01 }],
    [{ approve: async () => true }],
  ] as [SpendPolicy][])('behavior: policy %j allows the payment', async (policy) => {
    const server = createFakeServer(createOffer([usdcBaseSepolia]))
    expect((await wrapFetch(server.fetch, { clients: evmClients(), policy })(URL)).status).toBe(200)
  })

  test('behavior: the default per-payment limit is $1', async () => {
    const server = createFakeServer(createOffer([{ ...usdcBaseSepolia, amount: '1000001' }]))
    expect(await refusal(() => wrapFetch(server.fetch, { clients: evmClients() })(URL))).toEqual({
      code: 'payment_policy_refused',
      rule: 'max_per_payment',
    })
  })

  test('behavior: a policy-refused cheap option falls back to an allowed one', async () => {
    const server = createFakeServer(createOffer([usdtBscTestnet, usdcBaseSepolia]))
    const clients = evmClients()
    await wrapFetch(server.fetch, { clients, policy: { allowedAssets: ['USDC'] } })(URL)
    expect(clients[0]?.signed).toEqual([usdcBaseSepolia])
  })

  test('behavior: an unknown asset cannot be valued and is refused', async () => {
    const server = createFakeServer(
      createOffer([{ ...usdcBaseSepolia, asset: '0x4444444444444444444444444444444444444444' }]),
    )
    expect(await refusal(() => wrapFetch(server.fetch, { clients: evmClients() })(URL))).toEqual({
      code: 'payment_policy_refused',
      rule: 'asset',
    })
  })

  test('behavior: no key for any option is payment_unpayable', async () => {
    const server = createFakeServer(createOffer([usdcSolanaDevnet]))
    expect(await refusal(() => wrapFetch(server.fetch, { clients: evmClients() })(URL))).toEqual({
      code: 'payment_unpayable',
    })
  })

  test('behavior: a 402 without an offer is payment_required_invalid', async () => {
    const pay = wrapFetch(async () => new Response('nope', { status: 402 }), { clients: evmClients() })
    expect(await refusal(() => pay(URL))).toEqual({ code: 'payment_required_invalid' })
  })

  test('behavior: maxPerDay counts signed payments over a rolling 24 hours', async () => {
    let clock = 1_000_000_000
    const now = () => clock
    const ledger = createMemorySpendLedger({ now })
    const server = createFakeServer(createOffer([usdcBaseSepolia]))
    const pay = wrapFetch(server.fetch, {
      clients: evmClients(),
      policy: { maxPerDay: '$0.02' },
      ledger,
      now,
    })
    await pay(URL)
    await pay(URL)
    expect(await refusal(() => pay(URL))).toEqual({ code: 'payment_policy_refused', rule: 'max_per_day' })
    clock += 24 * 60 * 60 * 1000 + 1
    expect((await pay(URL)).status).toBe(200)
    expect(ledger.entries()).toHaveLength(1)
  })

  test('behavior: concurrent payments cannot overspend maxPerDay', async () => {
    const server = createFakeServer(createOffer([usdcBaseSepolia]))
    const pay = wrapFetch(server.fetch, { clients: evmClients(), policy: { maxPerDay: '$0.03' } })
    const results = await Promise.allSettled([pay(URL), pay(URL), pay(URL), pay(URL), pay(URL)])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3)
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(2)
  })

  test('behavior: a signing failure releases its reservation', async () => {
    const ledger = createMemorySpendLedger()
    const clients = evmClients()
    const eip3009 = clients[0]
    if (eip3009) {
      eip3009.fail = new Error('hardware wallet unplugged')
    }
    const server = createFakeServer(createOffer([usdcBaseSepolia]))
    await expect(wrapFetch(server.fetch, { clients, ledger, policy: { maxPerDay: 1 } })(URL)).rejects.toThrow(
      'hardware wallet unplugged',
    )
    expect(ledger.entries()).toEqual([])
  })

  test('behavior: balance check skips options the payer cannot afford', async () => {
    const server = createFakeServer(createOffer([usdtBscTestnet, usdcBaseSepolia]))
    const clients = evmClients()
    const balances = {
      getBalance: async ({ network }: { network: string }) => (network === 'eip155:97' ? 1n : 10n ** 9n),
    }
    await wrapFetch(server.fetch, { clients, balances })(URL)
    expect(clients[0]?.signed).toEqual([usdcBaseSepolia])
    expect(clients[1]?.signed).toEqual([])
  })

  test('behavior: insufficient balance everywhere refuses before signing', async () => {
    const server = createFakeServer(createOffer([usdcBaseSepolia]))
    const clients = evmClients()
    const balances = { getBalance: async () => 9999n }
    let caught: unknown
    try {
      await wrapFetch(server.fetch, { clients, balances })(URL)
    } catch (error) {
      caught = error
    }
    expect(isAppError(caught, 'payment_insufficient_balance') && caught.context).toEqual({
      url: URL,
      network: 'eip155:84532',
      asset: 'USDC',
      required: '10000',
      available: '9999',
    })
    expect(clients[0]?.signed).toEqual([])
  })

  test('behavior: the Permit2 approver runs before a Permit2 payment is signed', async () => {
    const server = createFakeServer(createOffer([usdtBscTestnet]))
    const calls: unknown[] = []
    await wrapFetch(server.fetch, {
      clients: evmClients(),
      permit2Approver: async (parameters) => {
        calls.push(parameters)
      },
    })(URL)
    expect(calls).toEqual([
      { network: 'eip155:97', token: usdtBscTestnet.asset, owner: EVM_PAYER, amount: 5000000000000000n },
    ])
  })

  test('behavior: a declared payment-identifier gets an id; other extensions are echoed', async () => {
    const extensions = {
      'payment-identifier': { info: { required: true }, schema: { type: 'object' } },
      other: { info: { a: 1 } },
    }
    const server = createFakeServer(createOffer([usdcBaseSepolia], { extensions }))
    await wrapFetch(server.fetch, { clients: evmClients() })(URL)
    const sent = readPaymentHeader(server.requests[1]) as { extensions: typeof extensions }
    expect(sent.extensions.other).toEqual({ info: { a: 1 } })
    const info = sent.extensions['payment-identifier'].info as { required: boolean; id: string }
    expect(info.required).toBe(true)
    expect(info.id).toMatch(/^pay_[A-Za-z0-9]{32}$/)
  })
})
