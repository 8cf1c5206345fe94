import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { createPublicClient, type Hex, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SandboxManifest } from '../sandbox/sandbox-manifest.js'

// examples/merchant-api-shop.ts as a user runs it: `npm start` (main.ts) in one process, the shop in
// another, paid by the `tollgate pay` CLI and by the official @x402/fetch; the income shows in the
// sandbox merchant's /x402/transactions.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
const children: ChildProcess[] = []
let dir: string
let manifest: SandboxManifest
let shopUrl: string

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`process exited with ${code} before ${pattern}`)))
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (pattern.test(line)) {
        resolve(line)
      }
    })
  })
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=tollgate-source', '--import', 'tsx', ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  return child
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tollgate-merchant-api-example-'))
  const manifestPath = join(dir, 'sandbox.json')
  const sandbox = start(['packages/service/src/main.ts', '--port', '0'], {
    TOLLGATE_DATA_DIR: join(dir, 'data'),
    TOLLGATE_MANIFEST: manifestPath,
  })
  await waitForLine(sandbox, /Tollgate sandbox ready/)
  manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as SandboxManifest
  const shop = start(['examples/merchant-api-shop.ts'], { SANDBOX_MANIFEST: manifestPath, PORT: '0' })
  shopUrl = (
    /listening on (\S+)/.exec(await waitForLine(shop, /listening on/)) as RegExpExecArray
  )[1] as string
}, 120_000)

afterAll(async () => {
  for (const child of children) {
    child.kill('SIGTERM')
  }
  await Promise.all(
    children.map(
      (c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once('exit', resolve))),
    ),
  )
  await rm(dir, { recursive: true, force: true })
})

describe('examples/merchant-api-shop.ts against npm start', () => {
  const payerKey = (index: number) =>
    manifest.wallets.filter((w) => w.network === 'eip155:84532')[index]?.privateKey as Hex
  const transactions = async () => {
    const res = await fetch(`${manifest.apiUrl}/x402/transactions`, {
      headers: { 'x-api-key': manifest.apiKey },
    })
    return ((await res.json()) as { data: { status: string; amount: string }[] }).data
  }

  test('default: the tollgate pay CLI pays the shop and the income is in the merchant API', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['packages/cli/bin/tollgate.js', 'pay', `${shopUrl}/report`, '--max', '0.01'],
      { cwd: root, env: { ...process.env, TOLLGATE_EVM_PRIVATE_KEY: payerKey(0) }, timeout: 60_000 },
    )
    expect(JSON.parse(stdout)).toMatchObject({ report: expect.any(String) })
    expect(stderr).toContain('"success":true')
    expect(await transactions()).toEqual([
      expect.objectContaining({ status: 'confirmed', amount: '0.010000' }),
    ])
    // The shop's /income reads the same through the typed client (@tollgate/client).
    expect(await (await fetch(`${shopUrl}/income`)).json()).toEqual([
      expect.objectContaining({ status: 'confirmed', amount: '0.010000' }),
    ])
  }, 90_000)

  test('behavior: the official @x402/fetch (v2) pays the same shop', async () => {
    const rpcUrl = manifest.networks['eip155:84532']?.rpcUrl
    const publicClient = createPublicClient({ transport: http(rpcUrl), pollingInterval: 50 })
    const scheme = new ExactEvmClient(toClientEvmSigner(privateKeyToAccount(payerKey(1)), publicClient))
    const res = await wrapFetchWithPayment(
      fetch,
      new x402Client().register('eip155:84532', scheme),
    )(`${shopUrl}/report`)
    expect(res.status).toBe(200)
    expect(await transactions()).toHaveLength(2)
  }, 90_000)
})
