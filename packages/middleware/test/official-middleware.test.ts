import { getPaymentReceipt, getPaymentRecord, wrapFetch } from '@tollgate/agent'
import { toViemChain } from '@tollgate/devnet'
import { x402Facilitator } from '@x402/core/facilitator'
import type { FacilitatorClient } from '@x402/core/server'
import type { Network } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmFacilitator } from '@x402/evm/exact/facilitator'
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server'
import { paymentMiddleware, x402ResourceServer } from '@x402/hono'
import { Hono } from 'hono'
import { createWalletClient, http, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type DevnetStack, MERCHANT_EVM, startDevnetStack } from './devnet-stack.js'

// Our agent pays a merchant running the official @x402/hono middleware with the official
// facilitator (in-process, @x402/evm exact) on the devnet.
let stack: DevnetStack

beforeAll(async () => {
  stack = await startDevnetStack()
})
afterAll(async () => {
  await stack?.stop()
})

function createOfficialFacilitator(network: string) {
  const net = stack.devnet.networks[network]
  const relayerKey = stack.devnet.wallets.find(
    (w) => w.network === network && w.role === 'relayer',
  )?.privateKey
  if (!net || !relayerKey) {
    throw new Error(`no ${network}`)
  }
  const account = privateKeyToAccount(relayerKey as `0x${string}`)
  const wallet = createWalletClient({
    account,
    chain: toViemChain(net),
    transport: http(),
    pollingInterval: 50,
  }).extend(publicActions)
  // The reference signer is typed loosely (abi: unknown[]); viem's typed methods take the same objects.
  type Loose<F extends (args: never) => unknown> = Parameters<F>[0]
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => wallet.readContract(args as Loose<typeof wallet.readContract>),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Loose<typeof wallet.verifyTypedData>),
    writeContract: (args) => wallet.writeContract(args as Loose<typeof wallet.writeContract>),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    getCode: (args) => wallet.getCode(args),
  })
  const facilitator = new x402Facilitator().register(
    network as `${string}:${string}`,
    new ExactEvmFacilitator(signer),
  )
  // The resource server takes a FacilitatorClient; the in-process facilitator answers /supported synchronously.
  const client: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => {
      const supported = facilitator.getSupported()
      return {
        ...supported,
        kinds: supported.kinds.map((kind) => ({ ...kind, network: kind.network as Network })),
      }
    },
  }
  return client
}

describe('our agent → official @x402/hono + official facilitator (devnet)', () => {
  test('behavior: eip3009 on Base Sepolia settles and the receipt reaches the agent', async () => {
    const resourceServer = new x402ResourceServer(createOfficialFacilitator('eip155:84532')).register(
      'eip155:84532',
      new ExactEvmServer(),
    )
    const app = new Hono()
    app.use(
      paymentMiddleware(
        {
          'GET /weather': {
            accepts: { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo: MERCHANT_EVM },
            description: 'Weather report',
          },
        },
        resourceServer,
      ),
    )
    app.get('/weather', (c) => c.json({ report: 'sunny' }))
    const payer = stack.payer('eip155:84532')
    const before = await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)
    const pay = wrapFetch((input, init) => Promise.resolve(app.fetch(new Request(input, init))), {
      wallets: { evm: payer.privateKey as `0x${string}` },
      policy: { maxPerPayment: '$0.01', allowedHosts: ['shop.test'] },
      assets: stack.assets,
    })
    const response = await pay('http://shop.test/weather')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ report: 'sunny' })
    expect(getPaymentRecord(response)).toMatchObject({ scheme: 'eip3009', x402Version: 2, usd: '0.01' })
    expect(getPaymentReceipt(response)).toMatchObject({ success: true, payer: payer.address })
    expect(await stack.balanceOf('eip155:84532', 'USDC', MERCHANT_EVM)).toBe(before + 10_000n)
  })
})
