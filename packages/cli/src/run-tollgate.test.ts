import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { agentCliHelp as payHelp } from '@tollgate/agent'
import type { CommandDef, SubCommandsDef } from 'citty'
import { describe, expect, test } from 'vitest'
import { createTollgateCommand } from './create-tollgate-command.js'
import { runCaptured } from './testing.js'

// Every command path of the tree: [['start'], ['keys'], ['keys', 'create'], …].
async function listCommandPaths(command: CommandDef, prefix: string[] = []): Promise<string[][]> {
  const subCommands = (await (typeof command.subCommands === 'function'
    ? command.subCommands()
    : command.subCommands)) as SubCommandsDef | undefined
  const paths: string[][] = []
  for (const [name, sub] of Object.entries(subCommands ?? {})) {
    const resolved = (await (typeof sub === 'function' ? sub() : sub)) as CommandDef
    paths.push([...prefix, name], ...(await listCommandPaths(resolved, [...prefix, name])))
  }
  return paths
}

const root = createTollgateCommand({
  io: {
    env: {},
    stdout: { write: () => true },
    stderr: { write: () => true },
    fetch: () => Promise.reject(new Error('unused')),
    signal: new AbortController().signal,
  },
  setExitCode: () => {},
})

describe('tollgate', () => {
  test('default: --help lists every command and exits 0', async () => {
    const { code, out } = await runCaptured(['--help'])
    expect(code).toBe(0)
    for (const name of [
      'start',
      'serve',
      'pay',
      'address',
      'facilitator',
      'merchants',
      'keys',
      'balances',
      'sandbox',
      'listen',
      'worker',
    ]) {
      expect(out).toMatch(new RegExp(`^\\s+${name}\\s{2,}\\S`, 'm'))
    }
  })

  test('default: every command and subcommand answers --help with its usage', async () => {
    const paths = await listCommandPaths(root)
    expect(paths).toContainEqual(['keys', 'create'])
    for (const path of paths) {
      const { code, out, err } = await runCaptured([...path, '--help'])
      expect({ path, code, err }).toEqual({ path, code: 0, err: '' })
      expect(out).toContain(`USAGE tollgate ${path.join(' ')}`)
    }
  })

  test('behavior: no command prints the usage to stderr and exits 2', async () => {
    const { code, out, err } = await runCaptured([])
    expect({ code, out }).toEqual({ code: 2, out: '' })
    expect(err).toContain('USAGE tollgate')
  })

  test.each([
    [['frobnicate'], 'Unknown command frobnicate'],
    [['keys', 'create', '--env', 'live'], 'Missing required argument: --merchant'],
    [['keys', 'create', '--merchant', 'mer_x', '--env', 'prod'], 'Invalid value for argument: --env (prod)'],
    [['keys', 'list', '--bogus'], 'Unknown option --bogus'],
    [['merchants', 'verify'], 'Missing required positional argument: MERCHANT'],
    [['sandbox', 'fund', '--merchant', 'mer_x', '--currency', 'EUR', '--amount', '1'], '--currency (EUR)'],
    [['listen'], 'Missing required argument: --forward-to'],
    [['pay'], 'Missing required positional argument: URL'],
    [['facilitator'], '--config is required'],
    [['serve'], '--config is required'],
  ])('behavior: %j is an argument error: message, usage, exit 2', async (argv, message) => {
    const { code, out, err } = await runCaptured(argv)
    expect({ code, out }).toEqual({ code: 2, out: '' })
    expect(err).toContain(message)
    expect(err).toContain('USAGE tollgate')
  })

  test("default: pay's help lists every option of the agent's pay", async () => {
    const { out } = await runCaptured(['pay', '--help'])
    const options = [...payHelp.matchAll(/--([a-z][a-z0-9-]*)/g)].map((match) => match[1] as string)
    expect(options).toContain('max-per-day')
    for (const option of new Set(options.filter((name) => name !== 'help' && name !== 'max'))) {
      expect(out).toContain(`--${option}`)
    }
    expect(out).toContain('--max=<max>')
  })

  test('behavior: pay hands its arguments to the agent, whose errors and exit codes come through', async () => {
    const { code, err } = await runCaptured(['pay', 'https://api.test/x'])
    expect(code).toBe(2)
    expect(err).toContain('no wallet: set TOLLGATE_EVM_PRIVATE_KEY')
  })

  test('behavior: the command definitions import nothing but citty and each other (fast --help)', async () => {
    const dir = join(import.meta.dirname, 'commands')
    for (const file of ['admin.ts', 'facilitator.ts', 'pay.ts', 'serve.ts', 'start.ts']) {
      const source = await readFile(join(dir, file), 'utf8')
      const imports = [...source.matchAll(/^import (?!type )[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1])
      expect({ file, imports: imports.filter((from) => !/^(citty|\.\.?\/|node:)/.test(from ?? '')) }).toEqual(
        {
          file,
          imports: [],
        },
      )
    }
  })
})
