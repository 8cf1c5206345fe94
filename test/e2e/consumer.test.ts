import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet } from '@tollgate/devnet'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { IMPORT_AGENT_AND_MIDDLEWARE, loadedAddons, RECOVER_WITH_EVM } from './loaded-addons.js'

// Issue 18's consumer test (docs/packages.md): the packages as a user gets them. Builds, packs every
// package, installs the libraries' tarballs into a project in the OS temp directory (outside the
// repository, so nothing resolves through the workspace), then imports them from plain Node,
// type-checks a strict consumer, runs the README's quickstarts (examples/quickstart) against a
// devnet and runs the bins. Slow by nature (a build and an npm install): one file, one setup.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const exec = promisify(execFile)
const PACKED = [
  'core',
  'evm',
  'svm',
  'facilitator',
  'middleware',
  'agent',
  'client',
  'devnet',
  'service',
  'cli',
]
// What a merchant, an agent or a facilitator operator installs, and the `tollgate` command (which
// brings the service and the devnet with it). The test itself runs the devnet from the repository.
const INSTALLED = [
  'core',
  'evm',
  'svm',
  'facilitator',
  'middleware',
  'agent',
  'client',
  'devnet',
  'service',
  'cli',
]
// Third-party packages the quickstarts use, at the repository's versions (npm's cache has them).
const THIRD_PARTY = ['hono', '@hono/node-server', 'express', '@types/express', '@types/node']
const SETUP_TIMEOUT = 900_000
const TEST_TIMEOUT = 300_000

let work = ''
let project = ''
let devnet: LocalDevnet | undefined
const children: ChildProcess[] = []
// Without the parent npm's settings (npm test sets npm_config_*), as a user's shell would be.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)))

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await exec('npm', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })
  return stdout
}

async function versionOf(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(root, 'node_modules', name, 'package.json'), 'utf8'))
  return `${name}@${(manifest as { version: string }).version}`
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tollgate-consumer-'))
  project = join(work, 'project')
  await mkdir(join(project, 'src'), { recursive: true })
  await npm(['run', 'build'], root)
  const packed = JSON.parse(
    await npm(
      [
        'pack',
        '--json',
        '--pack-destination',
        work,
        ...PACKED.flatMap((name) => ['--workspace', `packages/${name}`]),
      ],
      root,
    ),
  ) as { name: string; filename: string; files: { path: string }[] }[]
  expect(packed.map((p) => p.name).sort()).toEqual(PACKED.map((name) => `@tollgate/${name}`).sort())
  for (const tarball of packed) {
    expect(
      tarball.files.map((f) => f.path).filter((path) => /\.test\.|tsbuildinfo|^src\//.test(path)),
    ).toEqual([])
    expect(tarball.files.map((f) => f.path)).toEqual(expect.arrayContaining(['LICENSE', 'dist/index.js']))
  }
  await writeFile(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'tollgate-consumer', private: true, type: 'module' }, null, 2)}\n`,
  )
  const tarballs = packed
    .filter((p) => INSTALLED.some((name) => p.name === `@tollgate/${name}`))
    .map((p) => join(work, p.filename))
  const started = Date.now()
  await npm(
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      ...tarballs,
      ...(await Promise.all(THIRD_PARTY.map(versionOf))),
    ],
    project,
  )
  process.stdout.write(`consumer test: npm install took ${Math.round((Date.now() - started) / 1000)} s\n`)
}, SETUP_TIMEOUT)

afterAll(async () => {
  for (const child of children) {
    child.kill('SIGTERM')
  }
  await devnet?.stop()
  if (work) {
    await rm(work, { recursive: true, force: true })
  }
})

/** Starts `node <args>` in the consumer project and resolves with the URL its `pattern` line names. */
async function startAndWaitForUrl(args: string[], extraEnv: Record<string, string>, pattern: RegExp) {
  const child = spawn(process.execPath, args, {
    cwd: project,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  return new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)))
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const url = pattern.exec(line)?.[1]
      if (url) {
        resolve(url)
      }
    })
  })
}

describe('the packed packages in a consumer project', () => {
  test(
    'behavior: every installed package imports from plain Node ESM, loading no native addon for the agent and the middleware',
    async () => {
      const specifiers = INSTALLED.map((name) => `@tollgate/${name}`)
      const { stdout } = await exec(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `for (const s of ${JSON.stringify(specifiers)}) console.log(s, Object.keys(await import(s)).length > 0)`,
        ],
        { cwd: project, env },
      )
      expect(stdout.trim().split('\n')).toEqual(specifiers.map((s) => `${s} true`))
      expect(await loadedAddons({ cwd: project, code: IMPORT_AGENT_AND_MIDDLEWARE })).toEqual([])
      // The probe sees addons where they are used: evm's signature recovery loads secp256k1.
      const used = await loadedAddons({ cwd: project, code: RECOVER_WITH_EVM })
      expect(used.some((file) => file.includes('secp256k1'))).toBe(true)
    },
    TEST_TIMEOUT,
  )

  test(
    'behavior: a strict nodenext consumer type-checks against the declarations (skipLibCheck off)',
    async () => {
      await copyFile(join(root, 'test/e2e/consumer/tsconfig.json'), join(project, 'tsconfig.json'))
      await copyFile(join(root, 'test/e2e/consumer/imports.ts'), join(project, 'src/imports.ts'))
      for (const file of await readdir(join(root, 'examples/quickstart'))) {
        await copyFile(join(root, 'examples/quickstart', file), join(project, 'src', file))
      }
      const tsc = join(root, 'node_modules/typescript/bin/tsc')
      const result = await exec(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, env }).catch(
        (error: { stdout?: string }) => ({ stdout: `tsc failed:\n${error.stdout ?? String(error)}` }),
      )
      expect(result.stdout).toBe('')
    },
    TEST_TIMEOUT,
  )

  test(
    'behavior: the quickstarts pay through the facilitator bin, a hono and an Express merchant, on a devnet',
    async () => {
      devnet = await startDevnet({
        solana: false,
        evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === 'eip155:84532') },
      })
      const wallet = (role: 'payer' | 'relayer', index: number) =>
        devnet?.wallets.filter((w) => w.network === 'eip155:84532' && w.role === role)[index]?.privateKey ??
        ''
      await copyFile(join(root, 'examples/quickstart/facilitator.json'), join(project, 'facilitator.json'))
      const facilitatorUrl = await startAndWaitForUrl(
        [
          'node_modules/@tollgate/facilitator/bin/tollgate-facilitator.js',
          '--config',
          'facilitator.json',
          '--port',
          '0',
        ],
        {
          BASE_SEPOLIA_RPC_URL: devnet.networks['eip155:84532']?.rpcUrl ?? '',
          RELAYER_PRIVATE_KEY: wallet('relayer', 0),
        },
        /"url":"([^"]+)".*"msg":"facilitator listening"/,
      )
      for (const [merchant, payer] of [
        ['dist/hono-merchant.js', 0],
        ['dist/express-merchant.js', 1],
      ] as const) {
        const url = await startAndWaitForUrl(
          [merchant],
          { PORT: '0', FACILITATOR_URL: facilitatorUrl },
          /listening on (\S+)/,
        )
        const { stdout } = await exec(process.execPath, ['dist/agent.js'], {
          cwd: project,
          env: { ...env, API_URL: `${url}/weather`, PAYER_PRIVATE_KEY: wallet('payer', payer) },
          timeout: 120_000,
        })
        const [status, receipt] = stdout.trim().split('\n')
        expect(status, merchant).toMatch(/^200 \{ sunny: true, paidBy: '0x[0-9a-fA-F]{40}' \}$/)
        expect(JSON.parse(receipt?.replace(/^receipt /, '') ?? 'null'), merchant).toMatchObject({
          success: true,
          network: 'eip155:84532',
          transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        })
      }
    },
    TEST_TIMEOUT,
  )

  test(
    'behavior: each shipped bin answers --help with plain node',
    async () => {
      for (const bin of ['tollgate-facilitator', 'tollgate-pay', 'tollgate']) {
        const { stdout } = await exec(process.execPath, [join('node_modules/.bin', bin), '--help'], {
          cwd: project,
          env,
        })
        expect(stdout, bin).toMatch(/usage/i)
      }
    },
    TEST_TIMEOUT,
  )
})
