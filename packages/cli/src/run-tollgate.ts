import { stripVTControlCharacters } from 'node:util'
import { type ArgsDef, type CommandDef, defineCommand, renderUsage, runCommand } from 'citty'
import { createTollgateCommand, passThroughCommands } from './create-tollgate-command.js'
import { type TollgateIo, writeError, writeLine } from './tollgate-context.js'

/**
 * Runs `tollgate <argv>` and resolves with the exit status: `--help` (or `-h`) anywhere prints the
 * usage of the command it follows (0); an argument error prints the message and that usage to
 * stderr (2); otherwise the command's own status. Long-running commands resolve once they are up.
 */
export async function runTollgate(argv: readonly string[], io: TollgateIo): Promise<number> {
  let exitCode = 0
  const root = createTollgateCommand({ io, setExitCode: (code) => (exitCode = code) })
  const args = [...argv]
  const [command, path, rest] = await resolveCommand(root, args)
  const before = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'))
  // The usage line names the whole path (`tollgate keys create`): citty prints the parent's name first.
  const parent = path.length > 0 ? defineCommand({ meta: { name: path.join(' ') } }) : undefined
  const usage = async () => stripVTControlCharacters(await renderUsage(command, parent))
  if (args.length === 0 || before.includes('--help') || before.includes('-h')) {
    if (args.length === 0) {
      writeError(io, await usage())
      return 2
    }
    writeLine(io, await usage())
    return 0
  }
  try {
    const meta = await resolve(command.meta)
    if (!passThroughCommands.has(meta?.name ?? '')) {
      checkKnownFlags(before, (await resolve(command.args)) ?? {})
    }
    await runCommand(root, { rawArgs: args })
    return exitCode
  } catch (error) {
    const name = error instanceof Error ? error.name : ''
    if (name === 'CLIError' || name === 'UsageError') {
      writeError(io, `tollgate: ${stripVTControlCharacters((error as Error).message)}\n\n${await usage()}`)
      return 2
    }
    writeError(io, `tollgate: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}

type Resolvable<T> = T | Promise<T> | (() => T) | (() => Promise<T>)

async function resolve<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === 'function' ? (value as () => T | Promise<T>)() : value
}

// The command `argv` names (walking subcommands by their first positional), the names of the
// commands above it, and the arguments left for it.
async function resolveCommand(
  command: CommandDef,
  argv: string[],
  path: string[] = [],
): Promise<[CommandDef, string[], string[]]> {
  const subCommands = await resolve(command.subCommands)
  const index = argv.findIndex((arg) => !arg.startsWith('-'))
  const name = index === -1 ? undefined : argv[index]
  const sub = name === undefined || !subCommands ? undefined : subCommands[name]
  if (!sub || name === undefined) {
    return [command, path, argv]
  }
  const meta = await resolve(command.meta)
  return resolveCommand((await resolve(sub)) as CommandDef, argv.slice(index + 1), [
    ...path,
    meta?.name ?? name,
  ])
}

// citty accepts any flag; a misspelt option (`--merchnat`) must not be silently ignored.
function checkKnownFlags(argv: string[], args: ArgsDef): void {
  const known = new Set<string>()
  for (const [name, def] of Object.entries(args)) {
    known.add(name)
    for (const alias of ['alias' in def ? (def.alias ?? []) : []].flat()) {
      known.add(alias)
    }
  }
  for (const arg of argv) {
    if (!arg.startsWith('-') || arg === '-') {
      continue
    }
    const flag = arg.replace(/^--?/, '').split('=')[0] ?? ''
    if (!known.has(flag) && !known.has(flag.replace(/^no-/, ''))) {
      throw Object.assign(new Error(`Unknown option ${arg.split('=')[0]}`), { name: 'UsageError' })
    }
  }
}
