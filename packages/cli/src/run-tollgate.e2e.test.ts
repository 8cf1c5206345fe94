import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runCaptured } from './testing.js'

const root = resolve(import.meta.dirname, '../../..')

describe('tollgate admin commands on a PGlite directory', () => {
  let dir: string
  let env: Record<string, string>
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-cli-'))
    env = { TOLLGATE_DATA_DIR: join(dir, 'data') }
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('default: merchants create, keys create|list, balances', async () => {
    const created = await runCaptured(['merchants', 'create', '--name', 'Acme'], { env })
    expect(created).toMatchObject({ code: 0, err: '' })
    const merchant = JSON.parse(created.out) as { id: string }
    expect(merchant.id).toMatch(/^mer_/)

    const key = await runCaptured(['keys', 'create', '--merchant', merchant.id, '--env', 'live'], { env })
    expect(key.code).toBe(0)
    expect(key.err).toContain('shown only once')
    const secret = JSON.parse(key.out) as { id: string; key: string }
    expect(secret.key).toMatch(/^sk_live_/)
    const listed = await runCaptured(['keys', 'list', `--merchant=${merchant.id}`], { env })
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ id: secret.id, revokedAt: null })])
    expect(listed.out).not.toContain(secret.key)

    const balances = await runCaptured(['balances', '--merchant', merchant.id, '--env', 'live'], { env })
    expect(balances).toMatchObject({ code: 0, out: '[]\n' })
    // Each command opens (and migrates) the data directory once, so a few of them take a while.
  }, 240_000)

  test('behavior: a domain error exits 1 with its code; listen without a sandbox exits 1', async () => {
    expect(await runCaptured(['keys', 'revoke', 'key_nope'], { env })).toMatchObject({
      code: 1,
      err: expect.stringContaining('not_found'),
    })
    const listen = await runCaptured(['listen', '--forward-to', 'http://localhost:3000/hooks'], {
      env: { ...env, TOLLGATE_MANIFEST: join(dir, 'missing.json') },
    })
    expect(listen).toMatchObject({ code: 1, err: expect.stringContaining('no running sandbox found') })
  }, 120_000)

  test('behavior: facilitator and serve name the bad config file and exit 1', async () => {
    const file = join(dir, 'broken.json')
    await writeFile(file, '{ not json')
    for (const command of ['facilitator', 'serve']) {
      const { code, err } = await runCaptured([command, '--config', file], { env })
      expect({ command, code }).toEqual({ command, code: 1 })
      expect(err).toContain(`${file}: not valid JSON`)
    }
  })
})

describe('the tollgate bin', () => {
  test('default: `npx tollgate --help` in the repo (sources through tsx when there is no build)', async () => {
    const { stdout } = await promisify(execFile)('npx', ['--no-install', 'tollgate', '--help'], {
      cwd: root,
      timeout: 60_000,
    })
    expect(stdout).toContain('USAGE tollgate')
    expect(stdout).toMatch(/^\s+worker\s{2,}\S/m)
  })

  test('behavior: an argument error exits 2 through the bin', async () => {
    const run = promisify(execFile)(process.execPath, ['packages/cli/bin/tollgate.js', 'keys', 'create'], {
      cwd: root,
      timeout: 60_000,
    })
    await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--merchant') })
  })

  test('behavior: server commands run in a child node with the fixed semi-space and no allocation-site pretenuring, other commands without', async () => {
    // A preload (through NODE_OPTIONS, so the bin and its child both load it) records each process's
    // V8 flags and the young generation's size as V8 set it up.
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-bin-'))
    try {
      const preload = join(dir, 'record.mjs')
      await writeFile(
        preload,
        `import { appendFileSync } from 'node:fs'
import { getHeapSpaceStatistics } from 'node:v8'
const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
appendFileSync(${JSON.stringify(join(dir, 'seen.jsonl'))}, JSON.stringify({ command: process.env.SEEN_COMMAND, execArgv: process.execArgv, young: young.space_size }) + '\\n')
`,
      )
      const seen = async (command: string) => {
        await promisify(execFile)(process.execPath, ['packages/cli/bin/tollgate.js', command, '--help'], {
          cwd: root,
          timeout: 60_000,
          env: { ...process.env, NODE_OPTIONS: `--import=${preload}`, SEEN_COMMAND: command },
        })
        const lines = (await readFile(join(dir, 'seen.jsonl'), 'utf8')).trim().split('\n')
        return lines
          .map((line) => JSON.parse(line) as { command: string; execArgv: string[]; young: number })
          .filter((r) => r.command === command)
      }
      const flags = [
        '--max-semi-space-size=32',
        '--min-semi-space-size=32',
        '--no-allocation-site-pretenuring',
      ]
      const facilitator = await seen('facilitator')
      const child = facilitator.find((r) => flags.every((f) => r.execArgv.includes(f)))
      expect(child, JSON.stringify(facilitator)).toBeDefined()
      const keys = await seen('keys')
      expect(keys.length).toBeGreaterThan(0)
      expect(
        keys.some((r) => r.execArgv.some((a) => a.includes('semi-space') || a.includes('pretenuring'))),
      ).toBe(false)
      // The flag took effect: the child's young generation is larger than a default process's.
      expect(child?.young ?? 0).toBeGreaterThan(Math.max(...keys.map((r) => r.young)))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)

  test('behavior: the npm scripts that start servers pass the same V8 flags as the bin', async () => {
    const { scripts } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    const bin = await readFile(join(root, 'packages/cli/bin/tollgate.js'), 'utf8')
    const flags = [...(/SERVER_V8_FLAGS = \[([^\]]*)\]/.exec(bin)?.[1] ?? '').matchAll(/'([^']+)'/g)].map(
      (m) => m[1],
    )
    expect(flags).toContain('--no-allocation-site-pretenuring')
    for (const name of ['start', 'worker', 'tollgate']) {
      const args = (scripts[name] ?? '').split(' ')
      expect(args.filter((a) => a.startsWith('--') && flags.includes(a)).sort(), name).toEqual(
        [...flags].sort(),
      )
    }
  })
})
