import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, test } from 'vitest'

// Runs the programs in examples/ as a user would (each in its own process, against the devnet the
// API example starts), and the `tollgate pay` CLI against the same API. Slow by nature: each
// process compiles its TypeScript through tsx at start.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const run = promisify(execFile)
const children: ChildProcess[] = []

afterEach(async () => {
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) {
            resolve()
            return
          }
          child.once('exit', () => resolve())
          child.kill('SIGTERM')
        }),
    ),
  )
})

async function startApi(env: Record<string, string>): Promise<{ url: string; manifest: string }> {
  const manifest = join(tmpdir(), `paywalled-api-${process.pid}-${Date.now()}.json`)
  const child = spawn(
    process.execPath,
    ['--conditions=tollgate-source', '--import', 'tsx', 'examples/paywalled-api.ts'],
    {
      cwd: root,
      env: { ...process.env, PORT: '0', EXAMPLE_MANIFEST: manifest, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  children.push(child)
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`paywalled-api exited with ${code}`)))
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const match = /listening on (\S+)/.exec(line)
      if (match?.[1]) {
        resolve(match[1])
      }
    })
  })
  return { url, manifest }
}

async function runNode(args: string[], env: Record<string, string>) {
  return run(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 })
}

describe('examples', () => {
  test('behavior: paying-agent.ts and `tollgate pay` pay paywalled-api.ts (in-process facilitator)', async () => {
    const { url, manifest } = await startApi({})
    const agent = await runNode(
      ['--conditions=tollgate-source', '--import', 'tsx', 'examples/paying-agent.ts'],
      {
        EXAMPLE_MANIFEST: manifest,
      },
    )
    expect(agent.stdout.match(/HTTP 200/g)).toHaveLength(3)
    expect(agent.stdout.match(/"success":true/g)).toHaveLength(3)

    const unpaid = await fetch(`${url}/weather`, { headers: { Accept: 'text/html' } })
    expect(unpaid.status).toBe(402)
    expect(await unpaid.text()).toContain('Weather API')

    const { payers } = JSON.parse(await readFile(manifest, 'utf8')) as {
      payers: { network: string; privateKey: string }[]
    }
    const key = payers.filter((p) => p.network === 'eip155:84532')[1]?.privateKey ?? ''
    const cli = await runNode(
      [
        '--conditions=tollgate-source',
        '--import',
        'tsx',
        'packages/agent/bin/tollgate-pay.js',
        'pay',
        `${url}/weather`,
        '--max',
        '0.01',
      ],
      {
        TOLLGATE_EVM_PRIVATE_KEY: key,
      },
    )
    expect(JSON.parse(cli.stdout)).toMatchObject({ sky: 'sunny' })
    expect(cli.stderr).toContain('paid $0.01 (10000 atomic USDC) on eip155:84532 via eip3009')
    expect(cli.stderr).toContain('"success":true')
  }, 180_000)

  test('behavior: paying-agent.ts pays paywalled-api.ts through the standalone facilitator (facilitator.config.json)', async () => {
    const { manifest } = await startApi({ FACILITATOR: 'standalone' })
    const agent = await runNode(
      ['--conditions=tollgate-source', '--import', 'tsx', 'examples/paying-agent.ts'],
      {
        EXAMPLE_MANIFEST: manifest,
      },
    )
    expect(agent.stdout.match(/"success":true/g)).toHaveLength(3)
  }, 180_000)
})
