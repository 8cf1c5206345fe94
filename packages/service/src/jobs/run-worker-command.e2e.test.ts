import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_EVM_NETWORKS, type EvmDevnet, startEvmDevnet, usdcLikeAbi } from '@tollgate/devnet'
import { sql } from 'kysely'
import { type Address, createPublicClient, createWalletClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createApiKey } from '../auth/create-api-key.js'
import type { OpenedDatabase } from '../db/open-database.js'
import { custodyAccount, merchantAccount } from '../ledger/chart-of-accounts.js'
import { postTransaction } from '../ledger/post-transaction.js'
import { createMerchant } from '../merchants/create-merchant.js'
import { setPayoutDailyLimit } from '../merchants/verify-merchant.js'
import { createPayout } from '../payouts/create-payout.js'
import { reconcilePayoutJob } from '../payouts/payout-jobs.js'
import { parseProductionConfig } from '../production/production-config.js'
import { type ProductionServer, startProduction } from '../production/start-production.js'
import { createRecipient } from '../recipients/create-recipient.js'
import { openPostgresTestDatabase } from '../testing/test-databases.js'
import { runWorkerCommand } from './run-worker-command.js'

// `tollgate worker --config` beside `tollgate serve` with `inProcessJobs: false`, on PostgreSQL and an
// anvil with Base mainnet's chain id configured as the live network: the worker's own jobs send a
// crypto payout and sweep a deposit address on-chain (they once ran on sandbox rails, with no node).
const databaseUrl = process.env.TEST_DATABASE_URL
const liveBase = 'eip155:8453'

describe.skipIf(!databaseUrl)('tollgate worker --config (skipped without TEST_DATABASE_URL)', () => {
  let devnet: EvmDevnet
  let database: OpenedDatabase
  let dir: string
  let server: ProductionServer
  let worker: Promise<number>
  const stopWorker = new AbortController()
  const workerErr: string[] = []
  let merchantId: string
  let rpcUrl: string
  let usdc: Address

  const usdcOf = (holder: string) =>
    createPublicClient({ transport: http(rpcUrl) }).readContract({
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'balanceOf',
      args: [holder as Address],
    })

  beforeAll(async () => {
    const base = DEFAULT_EVM_NETWORKS.find((n) => n.network === 'eip155:84532')
    devnet = await startEvmDevnet({
      networks: [{ network: liveBase, chainId: 8453, tokens: base?.tokens ?? [] }],
    })
    const network = devnet.networks[liveBase]
    rpcUrl = network?.rpcUrl ?? ''
    usdc = (network?.assets.USDC?.address ?? '') as Address
    database = await openPostgresTestDatabase(databaseUrl as string)
    const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db))
      .rows[0]?.schema
    dir = await mkdtemp(join(tmpdir(), 'tollgate-worker-'))
    const configPath = join(dir, 'tollgate.config.json')
    const file = {
      port: 0,
      publicBaseUrl: 'https://pay.example.com',
      logLevel: 'warn',
      inProcessJobs: false,
      database: { schema, poolSize: 4 },
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
    }
    await writeFile(configPath, JSON.stringify(file))
    const env = {
      DATABASE_URL: databaseUrl,
      TOLLGATE_MASTER_SEED: 'e5'.repeat(64),
      TOLLGATE_SECRET_KEYS: `k1:${'cd'.repeat(32)}`,
      BASE_RPC_URL: rpcUrl,
    }
    // The API side: `tollgate serve`'s composition, running no jobs.
    server = await startProduction(parseProductionConfig(file, env))
    const { deps } = server
    const treasury = deps.rails.crypto.getTreasury('live', 'base')
    if (!treasury) {
      throw new Error('no live treasury on base')
    }
    await devnet.fund({ network: liveBase, address: treasury.address, amount: 10n ** 20n })
    await devnet.fund({
      network: liveBase,
      address: treasury.address,
      asset: 'USDC',
      amount: 1_000n * 10n ** 6n,
    })
    for (const payer of treasury.feePayers) {
      await devnet.fund({ network: liveBase, address: payer, amount: 10n ** 20n })
    }
    merchantId = (await createMerchant(deps, { name: 'Live shop' })).id
    await createApiKey(deps, { merchantId, environment: 'live' })
    await setPayoutDailyLimit(deps, { merchantId, limitUsd: '1000000' })
    // The merchant's live USDC, as a confirmed payment would have credited it.
    await postTransaction(deps, {
      environment: 'live',
      idempotencyKey: 'worker-test:funding',
      source: 'adjustment',
      legs: [
        {
          debit: custodyAccount('base', 'USDC'),
          credit: merchantAccount(merchantId),
          amount: 100_000_000n,
          currency: 'USDC',
        },
      ],
    })
    // The worker: the very function `tollgate worker --config <file>` calls, with the same file and environment.
    worker = runWorkerCommand(
      { configPath, env },
      {
        openDatabase: () => Promise.reject(new Error('a production worker opens the configured database')),
        out: () => {},
        err: (text) => workerErr.push(text),
        signal: stopWorker.signal,
      },
    )
  }, 180_000)

  afterAll(async () => {
    stopWorker.abort()
    await worker
    await server?.stop()
    await database?.close()
    await devnet?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  test('default: a crypto payout the server never handed over is sent on-chain by the worker and reaches success with its tx hash', async () => {
    const { deps } = server
    const to = privateKeyToAddress(generatePrivateKey())
    const { recipient } = await createRecipient(deps, {
      merchantId,
      environment: 'live',
      recipient: { type: 'crypto_address', details: { chain: 'base', address: to } },
    } as Parameters<typeof createRecipient>[1])
    // Created as POST /payouts does, by a server that stopped before submitting it: the job's backstop.
    const { payout } = await createPayout(deps, {
      merchantId,
      environment: 'live',
      format: 'current',
      request: { currency: 'USDC', recipientId: recipient.id, amount: '12.5' },
    } as Parameters<typeof createPayout>[1])
    await sql`update jobs set run_at = now() where kind = ${reconcilePayoutJob}`.execute(database.db)
    await sql`select pg_notify('tollgate_jobs', ${reconcilePayoutJob})`.execute(database.db)
    await vi.waitFor(
      async () => {
        const row = await database.db
          .selectFrom('payouts')
          .select(['status', 'tx_hash'])
          .where('id', '=', payout.id)
          .executeTakeFirstOrThrow()
        expect(row.status).toBe('success')
        expect(row.tx_hash).toMatch(/^0x[0-9a-f]{64}$/)
      },
      { timeout: 60_000, interval: 250 },
    )
    expect(await usdcOf(to)).toBe(12_500_000n)
    expect(workerErr).toEqual([])
  }, 90_000)

  test('default: a confirmed transfer to a deposit address is swept to the treasury on-chain by the worker', async () => {
    const { deps } = server
    const treasury = deps.rails.crypto.getTreasury('live', 'base')?.address as string
    const address = await deps.rails.addresses.allocate(deps.db, {
      merchantId,
      environment: 'live',
      chain: 'base',
      purpose: 'x402',
      ownerId: merchantId,
    })
    const before = await usdcOf(treasury)
    const payer = devnet.wallets.find((w) => w.network === liveBase && w.role === 'payer')
    const wallet = createWalletClient({
      account: privateKeyToAccount(payer?.privateKey as `0x${string}`),
      transport: http(rpcUrl),
    })
    await wallet.writeContract({
      chain: null,
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'transfer',
      args: [address.address as Address, 7_000_000n],
    })
    // Base's live confirmation count.
    await devnet.mine({ network: liveBase, blocks: 12 })
    await vi.waitFor(
      async () => {
        expect(await usdcOf(address.address)).toBe(0n)
        const sweep = await database.db
          .selectFrom('crypto_sends')
          .select('status')
          .where('idempotency_key', 'like', 'sweep:%')
          .executeTakeFirst()
        expect(sweep?.status).toBe('confirmed')
      },
      { timeout: 60_000, interval: 250 },
    )
    expect(await usdcOf(treasury)).toBe(before + 7_000_000n)
    const jobs = await database.db
      .selectFrom('jobs')
      .select(['kind', 'status', 'last_error'])
      .where('status', '=', 'failed')
      .execute()
    expect(jobs).toEqual([])
  }, 90_000)
})
