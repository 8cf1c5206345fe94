import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { authenticateApiKey } from './auth/authenticate-api-key.js'
import { type OpenedDatabase, openDatabase } from './db/open-database.js'
import { createIdGenerator, systemClock } from './deps.js'
import { emitEvent } from './events/emit-event.js'
import { runWorkerCommand } from './jobs/run-worker-command.js'
import { createMerchant } from './merchants/create-merchant.js'
import { type AdminCommand, runAdminCommand, runListenCommand } from './run-cli.js'
import { createDefaultSettings } from './settings.js'
import { describeEachDatabase } from './testing/each-database.js'
import { startWebhookReceiver } from './testing/webhook-receiver.js'
import { createWebhookEndpoint } from './webhooks/webhook-endpoints.js'

describeEachDatabase('tollgate CLI', (getDb, _engine, getOpened) => {
  let cli: (command: AdminCommand) => Promise<{ code: number; out: string; err: string }>
  beforeAll(() => {
    // The CLI closes its database after each command; the test keeps the shared one open.
    const opened: OpenedDatabase = { ...getOpened(), close: async () => {} }
    cli = async (command) => {
      let out = ''
      let err = ''
      const code = await runAdminCommand(command, {
        openDatabase: async () => opened,
        out: (text) => {
          out += text
        },
        err: (text) => {
          err += text
        },
      })
      return { code, out, err }
    }
  })

  test('default: merchants create, keys create|list|revoke, sandbox fund, balances', async () => {
    const created = await cli({ command: 'merchants create', name: 'Acme' })
    expect(created.code).toBe(0)
    const merchant = JSON.parse(created.out) as { id: string; name: string }
    expect(merchant).toMatchObject({ id: expect.stringMatching(/^mer_/), name: 'Acme' })

    const key = await cli({ command: 'keys create', merchant: merchant.id, env: 'live', format: 'legacy' })
    expect(key.code).toBe(0)
    expect(key.err).toContain('shown only once')
    const secret = JSON.parse(key.out) as { id: string; key: string; format: string }
    expect(secret.key).toMatch(/^sk_live_[0-9a-f]{64}$/)
    expect(await authenticateApiKey({ db: getDb() }, secret.key)).toMatchObject({
      merchantId: merchant.id,
      environment: 'live',
      format: 'legacy',
    })

    const listed = await cli({ command: 'keys list', merchant: merchant.id })
    expect(listed.out).not.toContain(secret.key)
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ id: secret.id, revokedAt: null })])

    const funded = await cli({
      command: 'sandbox fund',
      merchant: merchant.id,
      currency: 'USDC',
      amount: '25.5',
    })
    expect(JSON.parse(funded.out)).toEqual({
      currency: 'USDC',
      available: '25.500000',
      pending: '0.000000',
      total: '25.500000',
    })
    expect(JSON.parse((await cli({ command: 'balances', merchant: merchant.id })).out)).toHaveLength(1)
    expect(JSON.parse((await cli({ command: 'balances', merchant: merchant.id, env: 'live' })).out)).toEqual(
      [],
    )

    const verified = await cli({ command: 'merchants verify', merchantId: merchant.id })
    expect(JSON.parse(verified.out)).toEqual({ id: merchant.id, verified: true })
    const row = () =>
      getDb().selectFrom('merchants').selectAll().where('id', '=', merchant.id).executeTakeFirstOrThrow()
    expect((await row()).verified).toBe(true)
    expect(
      JSON.parse((await cli({ command: 'merchants verify', merchantId: merchant.id, off: true })).out)
        .verified,
    ).toBe(false)
    expect((await row()).verified).toBe(false)
    expect((await cli({ command: 'merchants verify', merchantId: 'mer_nope' })).code).toBe(1)
    await cli({ command: 'merchants payout-limit', merchantId: merchant.id, amount: '2500.5' })
    expect((await row()).payout_daily_limit).toBe('2500500000')
    await cli({ command: 'merchants payout-limit', merchantId: merchant.id, amount: 'default' })
    expect((await row()).payout_daily_limit).toBeNull()

    expect((await cli({ command: 'keys revoke', keyId: secret.id })).code).toBe(0)
    expect(await authenticateApiKey({ db: getDb() }, secret.key)).toBeUndefined()
  })

  test('behavior: bad values and domain errors exit 1 with a message', async () => {
    expect((await cli({ command: 'merchants create', name: '' })).err).toContain('--name is required')
    expect((await cli({ command: 'keys create', merchant: 'mer_x', env: 'prod' })).err).toContain(
      '--env must be one of test, live',
    )
    expect(await cli({ command: 'keys revoke', keyId: 'key_nope' })).toMatchObject({
      code: 1,
      err: expect.stringContaining('not_found'),
    })
    expect((await cli({ command: 'keys create', merchant: 'mer_nope', env: 'test' })).err).toContain(
      'not_found',
    )
    expect(
      (await cli({ command: 'sandbox fund', merchant: 'mer_x', currency: 'USDC', amount: '0' })).err,
    ).toContain('validation_error')
    expect(
      (await cli({ command: 'sandbox fund', merchant: 'mer_x', currency: 'USDC', amount: '1' })).err,
    ).toContain('not_found')
    expect(
      (await cli({ command: 'sandbox fund', merchant: 'mer_x', currency: 'EUR', amount: '1' })).err,
    ).toContain('--currency must be one of')
  })

  test('behavior: worker delivers the queued webhooks until stopped; listen without a sandbox exits 1', async () => {
    const receiver = await startWebhookReceiver()
    try {
      const deps = {
        db: getDb(),
        clock: systemClock,
        ids: createIdGenerator(),
        settings: createDefaultSettings(),
      }
      const merchant = await createMerchant(deps, { name: 'Worker test' })
      await createWebhookEndpoint(deps, {
        merchantId: merchant.id,
        environment: 'test',
        url: `${receiver.url}/hook`,
      })
      const eventId = await emitEvent(deps.db, deps, {
        merchantId: merchant.id,
        environment: 'test',
        type: 'deposit.completed',
        format: 'current',
        data: { deposit: {} },
      })
      const controller = new AbortController()
      const err: string[] = []
      const worker = runWorkerCommand(
        { sandbox: true },
        {
          openDatabase: async () => ({ ...getOpened(), close: async () => {} }),
          // No sandbox running: no chain has a node, as the sandbox worker without a manifest.
          manifestPath: '/nonexistent/sandbox.json',
          out: () => {},
          err: (text) => err.push(text),
          signal: controller.signal,
          // The keyring the endpoint's secret was stored under (TOLLGATE_SECRET_KEYS in production).
          secretKeyring: async () => deps.settings.secretKeyring,
        },
      )
      await vi.waitFor(
        () => expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([eventId]),
        {
          timeout: 20_000,
        },
      )
      controller.abort()
      expect(await worker).toBe(0)

      const listen = await runListenCommand(
        { forwardTo: 'http://localhost:3000/webhooks' },
        {
          openDatabase: () => Promise.reject(new Error('listen must not open the database')),
          out: () => {},
          err: (text) => err.push(text),
          manifestPath: '/nonexistent/sandbox.json',
        },
      )
      expect(listen).toBe(1)
      expect(err.join('\n')).toContain('no running sandbox found')
    } finally {
      await receiver.close()
    }
  })
})

describe('tollgate CLI next to a running sandbox', () => {
  let dir: string
  let holder: ChildProcess | undefined
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-cli-lock-'))
  })
  afterAll(async () => {
    holder?.kill('SIGKILL')
    await rm(dir, { recursive: true, force: true })
  })

  const cli = async (command: AdminCommand) => {
    let out = ''
    let err = ''
    const code = await runAdminCommand(command, {
      openDatabase: () => openDatabase({ dataDir: dir }),
      out: (text) => {
        out += text
      },
      err: (text) => {
        err += text
      },
    })
    return { code, out, err }
  }

  test('behavior: refused while another process holds the data directory, served once it is gone', async () => {
    // Another process opens the directory the way the sandbox does and keeps it.
    const script = `const { openDatabase } = await import(${JSON.stringify(resolve(import.meta.dirname, 'db/open-database.ts'))})
      await openDatabase({ dataDir: ${JSON.stringify(dir)} }); console.log('ready'); setInterval(() => {}, 1000)`
    const child = spawn(
      process.execPath,
      ['--conditions=tollgate-source', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    holder = child
    await new Promise<void>((ready, fail) => {
      child.stdout?.on('data', (chunk: Buffer) => (String(chunk).includes('ready') ? ready() : undefined))
      child.once('exit', (code) => fail(new Error(`holder exited with ${code}`)))
    })

    const refused = await cli({ command: 'merchants list' })
    expect(refused.code).toBe(1)
    expect(refused.out).toBe('')
    expect(refused.err).toContain(`is in use by process ${child.pid}`)
    expect(refused.err).toContain('Stop the sandbox first, or make the change through the running service')

    // Killed without closing: its lock is stale, and the CLI takes the directory over.
    child.kill('SIGKILL')
    await new Promise((exited) => child.once('exit', exited))
    const served = await cli({ command: 'merchants list' })
    expect(served).toMatchObject({ code: 0, out: '[]' })
  })
})
