import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { getPaymentReceipt, wrapFetch } from '@tollgate/agent'
import { decodePaymentRequiredHeader, X402_HEADERS } from '@tollgate/core'
import {
  type FiatTokenUpstream,
  isReadOnlyRpcMethod,
  type RpcRecorder,
  startFiatTokenUpstream,
  startRpcRecorder,
} from '@tollgate/devnet/testing'
import { createPublicClient, erc20Abi, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DEMO_MERCHANT_EVM } from './create-x402-mounts.js'
import type { SandboxManifest } from './sandbox-manifest.js'

// Issue 23's done-when, as a user runs it: `npm start -- --fork eip155:84532=<url> --fund <address>`
// brings the sandbox up on a fork whose --fund-ed wallet pays the demo resource. The upstream is a
// local anvil playing Base Sepolia whose USDC has FiatToken's layout and a domain that is not the
// registry's, so a payment only settles if the facilitator uses the domain read from the token.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..')
const BASE = 'eip155:84532'
const BASE_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const DOMAIN = { name: 'USD Coin (fork fixture)', version: '3' }

let dir: string
let upstream: FiatTokenUpstream
let recorder: RpcRecorder
let sandbox: ChildProcess | undefined
let manifest: SandboxManifest
const agentKey = generatePrivateKey()
const agent = privateKeyToAccount(agentKey)

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code} before ${pattern}`)))
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (pattern.test(line)) {
        resolve(line)
      }
    })
  })
}

const usdcOf = (rpcUrl: string, holder: `0x${string}`) =>
  createPublicClient({ transport: http(rpcUrl) }).readContract({
    address: BASE_USDC,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
  })

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tollgate-fork-sandbox-'))
  upstream = await startFiatTokenUpstream({
    network: BASE,
    chainId: 84532,
    token: { address: BASE_USDC, symbol: 'USDC', decimals: 6, ...DOMAIN },
  })
  recorder = await startRpcRecorder(upstream.rpcUrl)
  const manifestPath = join(dir, 'sandbox.json')
  const args = ['--port', '0', '--fork', `${BASE}=${recorder.url}`, '--fund', agent.address]
  const node = ['--conditions=tollgate-source', '--import', 'tsx']
  sandbox = spawn(process.execPath, [...node, 'packages/service/src/main.ts', ...args], {
    cwd: root,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      TOLLGATE_DATA_DIR: join(dir, 'data'),
      TOLLGATE_MANIFEST: manifestPath,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await waitForLine(sandbox, /eip155:84532 \(fork at block \d+\)/)
  manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as SandboxManifest
}, 120_000)

afterAll(async () => {
  const child = sandbox
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  await recorder?.close()
  await upstream?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe('npm start -- --fork eip155:84532=<url> --fund <address>', () => {
  test('default: the manifest advertises the fork token with the domain read from it', () => {
    expect(manifest.networks[BASE]?.assets.USDC).toEqual({
      address: BASE_USDC,
      decimals: 6,
      eip712: DOMAIN,
      transferMethods: ['eip3009', 'permit2'],
    })
  })

  test('default: the --fund-ed wallet pays the demo resource on the fork; the upstream does not move', async () => {
    const forkUrl = manifest.networks[BASE]?.rpcUrl as string
    const upstreamClient = createPublicClient({ transport: http(upstream.rpcUrl) })
    const upstreamBlock = await upstreamClient.getBlockNumber()
    const merchantBefore = await usdcOf(forkUrl, DEMO_MERCHANT_EVM)
    expect(await usdcOf(forkUrl, agent.address)).toBe(1_000_000n * 10n ** 6n)

    const offer = decodePaymentRequiredHeader(
      (await fetch(manifest.demoResourceUrl)).headers.get(X402_HEADERS.paymentRequired) ?? '',
    )
    expect(offer.accepts.find((a) => a.network === BASE)?.extra).toMatchObject(DOMAIN)

    const paidFetch = wrapFetch(fetch, { wallets: { evm: agentKey as Hex } })
    const res = await paidFetch(manifest.demoResourceUrl)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ payer: agent.address, network: BASE, scheme: 'eip3009' })
    const receipt = getPaymentReceipt(res)
    expect(receipt?.success).toBe(true)
    const forkClient = createPublicClient({ transport: http(forkUrl) })
    const mined = await forkClient.getTransactionReceipt({ hash: receipt?.transaction as Hex })
    expect(mined.status).toBe('success')
    expect(await usdcOf(forkUrl, DEMO_MERCHANT_EVM)).toBe(merchantBefore + 10_000n)

    expect(await upstreamClient.getBlockNumber()).toBe(upstreamBlock)
    expect(await usdcOf(upstream.rpcUrl, DEMO_MERCHANT_EVM)).toBe(0n)
    expect(await usdcOf(upstream.rpcUrl, agent.address)).toBe(0n)
    expect(recorder.methods.filter((m) => !isReadOnlyRpcMethod(m))).toEqual([])
  }, 60_000)
})
