import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { DEFAULT_EVM_NETWORKS, type EvmDevnet, startEvmDevnet } from '@tollgate/devnet'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createApiKey } from '../auth/create-api-key.js'
import type { OpenedDatabase } from '../db/open-database.js'
import { createIdGenerator, systemClock } from '../deps.js'
import { createMerchant } from '../merchants/create-merchant.js'
import { openPostgresTestDatabase } from '../testing/test-databases.js'

const root = resolve(import.meta.dirname, '../../../..')
const databaseUrl = process.env.TEST_DATABASE_URL
// Base mainnet's id on an anvil: the devnet's chain configured as if it were the live network.
const liveBase = 'eip155:8453'

describe.skipIf(!databaseUrl)(
  'tollgate serve (skipped without TEST_DATABASE_URL: production runs on PostgreSQL)',
  () => {
    let devnet: EvmDevnet
    let database: OpenedDatabase
    let dir: string
    let child: ChildProcess | undefined
    let url: string
    let liveKey: string
    let testKey: string

    beforeAll(async () => {
      const base = DEFAULT_EVM_NETWORKS.find((n) => n.network === 'eip155:84532')
      devnet = await startEvmDevnet({
        networks: [{ network: liveBase, chainId: 8453, tokens: base?.tokens ?? [] }],
      })
      database = await openPostgresTestDatabase(databaseUrl as string)
      const deps = { db: database.db, clock: systemClock, ids: createIdGenerator() }
      const merchant = await createMerchant(deps, { name: 'Live shop' })
      liveKey = (await createApiKey(deps, { merchantId: merchant.id, environment: 'live' })).key
      testKey = (await createApiKey(deps, { merchantId: merchant.id, environment: 'test' })).key
      const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db))
        .rows[0]?.schema
      const network = devnet.networks[liveBase]
      dir = await mkdtemp(join(tmpdir(), 'tollgate-serve-'))
      const configPath = join(dir, 'tollgate.config.json')
      await writeFile(
        configPath,
        JSON.stringify({
          port: 0,
          publicBaseUrl: 'https://pay.example.com',
          logLevel: 'warn',
          database: { schema },
          fx: { usdPrices: { ETH: '3000' } },
          networks: {
            [liveBase]: {
              rpcUrlEnv: 'BASE_RPC_URL',
              assets: Object.fromEntries(
                Object.values(network?.assets ?? {}).map((a) => [
                  a.symbol,
                  {
                    symbol: a.symbol,
                    address: a.address,
                    decimals: a.decimals,
                    ...(a.eip712 ? { eip712: a.eip712 } : {}),
                  },
                ]),
              ),
            },
          },
        }),
      )
      child = spawn(
        process.execPath,
        [
          '--conditions=tollgate-source',
          '--import',
          'tsx',
          'packages/cli/src/main.ts',
          'serve',
          '--config',
          configPath,
        ],
        {
          cwd: root,
          env: {
            PATH: process.env.PATH,
            DATABASE_URL: databaseUrl,
            TOLLGATE_MASTER_SEED: 'ab'.repeat(64),
            TOLLGATE_SECRET_KEYS: `k1:${'cd'.repeat(32)}`,
            BASE_RPC_URL: network?.rpcUrl,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      const progress: string[] = []
      createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) =>
        progress.push(line),
      )
      url = await new Promise<string>((ready, fail) => {
        createInterface({ input: child?.stdout as NodeJS.ReadableStream }).on('line', (line) => {
          const match = /Tollgate ready at (\S+)/.exec(line)
          if (match?.[1]) {
            ready(match[1])
          }
        })
        child?.once('exit', (code) =>
          fail(new Error(`tollgate serve exited with ${code}: ${progress.join('\n')}`)),
        )
      })
      expect(progress.join('\n')).toContain(`starting the chain watchers (${liveBase})`)
    }, 180_000)

    afterAll(async () => {
      if (child && child.exitCode === null) {
        const exited = new Promise((done) => child?.once('exit', done))
        child.kill('SIGTERM')
        await exited
      }
      await database?.close()
      await devnet?.stop()
      await rm(dir, { recursive: true, force: true })
    })

    const api = (path: string, key: string, init: RequestInit = {}) =>
      fetch(`${url}${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json' } })

    test('default: answers /health, and a live key creates and reads a payment session on the live chain', async () => {
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' })
      const created = await api('/api/v1/payments', liveKey, {
        method: 'POST',
        body: JSON.stringify({
          title: 'Order 1',
          amount: '10.00',
          currency: 'USD',
          asset: 'USDC',
          chain: 'base',
          customer: { email: 'buyer@example.com' },
        }),
      })
      expect(created.status).toBe(200)
      const session = ((await created.json()) as { data: { reference: string } }).data
      const read = await api(`/api/v1/payments/reference/${session.reference}`, liveKey)
      expect(read.status).toBe(200)
      const { payment } = ((await read.json()) as { data: { payment: { address: string } } }).data
      expect(payment).toMatchObject({ status: 'pending', asset: 'USDC', chain: 'base', amount: '10.000000' })
      // The address is a live one on the configured network, which the server's watcher polls.
      const row = await database.db
        .selectFrom('deposit_addresses')
        .select(['environment', 'network'])
        .where('address', '=', payment.address)
        .executeTakeFirstOrThrow()
      expect(row).toEqual({ environment: 'live', network: liveBase })
    })

    test('behavior: the sandbox routes are absent (404) for a live key, and there is no sandbox home', async () => {
      const res = await api('/api/v1/sandbox/fund', liveKey, {
        method: 'POST',
        body: JSON.stringify({ currency: 'USDC', amount: '1' }),
      })
      expect(res.status).toBe(404)
      expect((await fetch(`${url}/`)).status).toBe(404)
    })

    test('behavior: a sandbox key (sk_test_) of an existing merchant is refused with 401 test_key_not_allowed', async () => {
      for (const path of ['/api/v1/balance', '/api/v1/sandbox/fund']) {
        const res = await api(path, testKey)
        expect(res.status).toBe(401)
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('test_key_not_allowed')
      }
    })
  },
)
