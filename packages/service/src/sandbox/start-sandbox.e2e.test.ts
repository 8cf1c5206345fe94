import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Devnet } from '@tollgate/devnet'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { emitEvent } from '../events/emit-event.js'
import { createLogger } from '../http/create-logger.js'
import { startWebhookReceiver } from '../testing/webhook-receiver.js'
import { sandboxPayoutHolder } from './sandbox-payout-accounts.js'
import { startSandbox } from './start-sandbox.js'

function createFakeDevnet(): Devnet & { stopped: number } {
  const devnet = {
    stopped: 0,
    networks: {
      'eip155:84532': {
        network: 'eip155:84532',
        kind: 'evm' as const,
        chainId: 84532,
        rpcUrl: 'http://127.0.0.1:9',
        assets: {
          USDC: {
            symbol: 'USDC',
            address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
            decimals: 6,
            eip712: { name: 'USDC', version: '2' },
            transferMethods: ['eip3009' as const, 'permit2' as const],
          },
        },
      },
    },
    wallets: [
      { network: 'eip155:84532', role: 'payer' as const, address: '0xpayer', privateKey: '0x01' },
      { network: 'eip155:84532', role: 'relayer' as const, address: '0xrelayer', privateKey: '0x02' },
    ],
    fund: async () => {},
    stop: async () => {
      devnet.stopped += 1
    },
  }
  return devnet
}

describe('startSandbox', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-sandbox-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('default: comes up, writes the manifest, serves the funded balance, stops cleanly', async () => {
    const devnet = createFakeDevnet()
    const logger = createLogger({ level: 'silent' })
    const sandbox = await startSandbox({
      port: 0,
      dataDir: join(dir, 'data'),
      startDevnet: async () => devnet,
      logger,
    })
    const manifest = JSON.parse(await readFile(join(dir, 'sandbox.json'), 'utf8'))
    expect(manifest).toEqual(sandbox.manifest)
    expect(Object.keys(manifest)).toEqual([
      'apiUrl',
      'apiKey',
      'facilitatorUrl',
      'demoResourceUrl',
      'checkoutUrl',
      'networks',
      'chains',
      'wallets',
      'smartAccounts',
      'webhooks',
    ])
    expect(manifest.chains).toEqual({ base: 'eip155:84532' })
    const seedFile = join(dir, 'master-seed')
    const seed = (await readFile(seedFile, 'utf8')).trim()
    expect((await stat(seedFile)).mode & 0o777).toBe(0o600)
    expect(seed).toMatch(/^[0-9a-f]{128}$/)
    expect(JSON.stringify(manifest)).not.toContain(seed)
    expect(manifest.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/)
    expect(manifest.apiKey).toMatch(/^sk_test_[0-9a-f]{64}$/)
    expect(manifest.networks['eip155:84532']).toEqual({
      rpcUrl: 'http://127.0.0.1:9',
      assets: {
        USDC: {
          address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          decimals: 6,
          eip712: { name: 'USDC', version: '2' },
          transferMethods: ['eip3009', 'permit2'],
        },
      },
    })
    expect(manifest.wallets).toEqual([{ network: 'eip155:84532', address: '0xpayer', privateKey: '0x01' }])
    // Smart accounts come with the x402 facilitator, which this sandbox does not start.
    expect(manifest.smartAccounts).toEqual([])

    const res = await fetch(`${manifest.apiUrl}/balance`, { headers: { 'x-api-key': manifest.apiKey } })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { data: { currency: string; available: string }[] }
    const byCurrency = Object.fromEntries(body.data.map((b) => [b.currency, b.available]))
    expect(byCurrency).toEqual({ NGN: '1000000.00', USDC: '10000.000000', USDT: '10000.000000' })
    // A verified business, so cross-border payouts work in the sandbox.
    const merchant = await sandbox.deps.db
      .selectFrom('merchants')
      .select(['verified', 'business_name'])
      .where('id', '=', sandbox.merchantId)
      .executeTakeFirstOrThrow()
    expect(merchant).toEqual({ verified: true, business_name: sandboxPayoutHolder })

    // The job runner runs in the sandbox: an event reaches an endpoint created through the API.
    const receiver = await startWebhookReceiver()
    try {
      const created = await fetch(`${manifest.apiUrl}/webhooks/endpoints`, {
        method: 'POST',
        headers: { 'x-api-key': manifest.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/hook` }),
      })
      expect(created.status).toBe(200)
      const eventId = await emitEvent(sandbox.deps.db, sandbox.deps, {
        merchantId: sandbox.merchantId,
        environment: 'test',
        type: 'payment.completed',
        format: 'current',
        data: { session: {} },
      })
      await vi.waitFor(
        () => expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId]),
        {
          timeout: 15_000,
        },
      )
      expect(manifest.webhooks.listenCommand).toContain('listen --forward-to')
    } finally {
      await receiver.close()
    }

    await sandbox.stop()
    expect(devnet.stopped).toBe(1)
    await expect(fetch(`${manifest.apiUrl}/balance`)).rejects.toThrow()

    // Restart on the same data directory: same key, balances not funded twice.
    const again = await startSandbox({
      port: 0,
      dataDir: join(dir, 'data'),
      startDevnet: async () => createFakeDevnet(),
      logger,
    })
    try {
      expect(again.manifest.apiKey).toBe(manifest.apiKey)
      expect((await readFile(seedFile, 'utf8')).trim()).toBe(seed)
      const res2 = await fetch(`${again.manifest.apiUrl}/balance`, {
        headers: { 'x-api-key': manifest.apiKey },
      })
      const body2 = (await res2.json()) as { data: { currency: string; available: string }[] }
      expect(body2.data.find((b) => b.currency === 'USDT')?.available).toBe('10000.000000')
    } finally {
      await again.stop()
    }
  })

  test('behavior: extra mounts share the server, see relative paths, and stop with it', async () => {
    let stopped = 0
    let seenBaseUrl = ''
    const sandbox = await startSandbox({
      port: 0,
      dataDir: join(dir, 'data-mounts'),
      startDevnet: async () => createFakeDevnet(),
      logger: createLogger({ level: 'silent' }),
      mounts: ({ baseUrl, merchantId }) => {
        seenBaseUrl = baseUrl
        const facilitator = new Hono().get('/supported', (c) => c.json({ path: c.req.path, merchantId }))
        const demo = new Hono().get('/', (c) => c.text('paid content'))
        return [
          {
            path: '/facilitator',
            fetch: facilitator.fetch,
            stop: async () => {
              stopped += 1
            },
          },
          { path: '/demo/paid', fetch: demo.fetch },
        ]
      },
    })
    try {
      const base = sandbox.manifest.apiUrl.replace(/\/api\/v1$/, '')
      expect(seenBaseUrl).toBe(base)
      const supported = await fetch(`${base}/facilitator/supported`)
      expect(await supported.json()).toEqual({ path: '/supported', merchantId: sandbox.merchantId })
      expect(await (await fetch(`${base}/demo/paid`)).text()).toBe('paid content')
      // The service is still there, on the same port.
      const balance = await fetch(`${sandbox.manifest.apiUrl}/balance`, {
        headers: { 'x-api-key': sandbox.manifest.apiKey },
      })
      expect(balance.status).toBe(200)
      expect((await sandbox.app.request('/facilitator/supported')).status).toBe(200)
    } finally {
      await sandbox.stop()
    }
    expect(stopped).toBe(1)
  })

  test('behavior: a devnet that fails to start is a clear error and leaves nothing running', async () => {
    const logger = createLogger({ level: 'silent' })
    await expect(
      startSandbox({
        port: 0,
        dataDir: join(dir, 'data2'),
        logger,
        startDevnet: async () => {
          throw new Error('anvil not found')
        },
      }),
    ).rejects.toThrow('The devnet (local chains) failed to start: anvil not found')
  })
})
