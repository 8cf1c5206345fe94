import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSafeAccount, getPaymentReceipt, wrapFetch } from '@tollgate/agent'
import { decodePaymentRequiredHeader, X402_HEADERS } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, startDevnet, usdcLikeAbi } from '@tollgate/devnet'
import { createPublicClient, type Hex, http } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../http/create-logger.js'
import { createSandboxFacilitator, createX402Mounts, DEMO_MERCHANT_EVM } from './create-x402-mounts.js'
import { type Sandbox, startSandbox } from './start-sandbox.js'

// The sandbox of `npm start` with its x402 parts: our facilitator at /facilitator and the demo
// paid resource at /demo/paid, on a real (Base Sepolia only, to stay light) devnet.
describe('sandbox x402 mounts', () => {
  let dir: string
  let sandbox: Sandbox
  const start = () =>
    startSandbox({
      port: 0,
      dataDir: join(dir, 'data'),
      logger: createLogger({ level: 'silent' }),
      startDevnet: () =>
        startDevnet({
          evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === 'eip155:84532') },
          solana: false,
        }),
      createFacilitator: createSandboxFacilitator,
      mounts: createX402Mounts,
    })

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-sandbox-x402-'))
    sandbox = await start()
  })
  afterAll(async () => {
    await sandbox?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  test('default: the demo resource answers 402 with an offer for each devnet scheme it can serve', async () => {
    const res = await fetch(sandbox.manifest.demoResourceUrl)
    expect(res.status).toBe(402)
    const offer = decodePaymentRequiredHeader(res.headers.get(X402_HEADERS.paymentRequired) ?? '')
    expect(offer.resource.url).toBe(sandbox.manifest.demoResourceUrl)
    expect(offer.accepts.map((a) => [a.network, a.amount, a.payTo])).toEqual([
      ['eip155:84532', '10000', DEMO_MERCHANT_EVM],
    ])
  })

  test('default: an agent pays the demo resource through the sandbox facilitator, on chain', async () => {
    const network = sandbox.devnet.networks['eip155:84532']
    const payer = sandbox.devnet.wallets.find((w) => w.network === 'eip155:84532' && w.role === 'payer')
    if (!network || !payer) {
      throw new Error('devnet without Base Sepolia')
    }
    const client = createPublicClient({ transport: http(network.rpcUrl) })
    const usdc = network.assets.USDC?.address as Hex
    const balance = () =>
      client.readContract({
        address: usdc,
        abi: usdcLikeAbi,
        functionName: 'balanceOf',
        args: [DEMO_MERCHANT_EVM],
      })
    const before = await balance()

    const paidFetch = wrapFetch(fetch, { wallets: { evm: payer.privateKey as Hex } })
    const res = await paidFetch(sandbox.manifest.demoResourceUrl)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      payer: payer.address,
      network: 'eip155:84532',
      scheme: 'eip3009',
    })
    const receipt = getPaymentReceipt(res)
    expect(receipt?.success).toBe(true)
    expect(await balance()).toBe(before + 10_000n)

    const tx = await client.getTransactionReceipt({ hash: receipt?.transaction as Hex })
    expect(tx.status).toBe('success')
  })

  test('behavior: settlements are stored durably in the service database and survive a restart', async () => {
    await sandbox.stop()
    sandbox = await start()
    const health = await fetch(`${sandbox.manifest.facilitatorUrl}/health`)
    expect(health.status).toBe(200)
    const body = (await health.json()) as { settlements: Record<string, number> }
    expect(body.settlements.settled).toBe(1)
    const supported = (await (await fetch(`${sandbox.manifest.facilitatorUrl}/supported`)).json()) as {
      kinds: { network: string }[]
    }
    expect(supported.kinds.map((k) => k.network)).toContain('eip155:84532')
  })

  test('behavior: the manifest’s counterfactual Safe pays the demo resource with its owner key', async () => {
    const [account] = sandbox.manifest.smartAccounts
    const network = sandbox.devnet.networks['eip155:84532']
    if (!account || !network) {
      throw new Error('sandbox without a Base Sepolia Safe')
    }
    expect(account).toMatchObject({ network: 'eip155:84532', type: 'safe' })
    const client = createPublicClient({ transport: http(network.rpcUrl) })
    expect(await client.getCode({ address: account.address as Hex })).toBeUndefined()
    const safe = await createSafeAccount({
      owner: account.ownerPrivateKey as Hex,
      network: account.network,
      rpcUrl: network.rpcUrl,
    })
    expect(safe.address).toBe(account.address)
    const res = await wrapFetch(fetch, { wallets: { evm: safe } })(sandbox.manifest.demoResourceUrl)
    expect(res.status).toBe(200)
    expect(getPaymentReceipt(res)).toMatchObject({ success: true, payer: account.address })
    expect(await client.getCode({ address: account.address as Hex })).toMatch(/^0x[0-9a-f]+$/)
  })
})
