import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { createDevnetError } from '../errors.js'

/**
 * Options of {@link spawnAnvil}: chain id and how many accounts of the default mnemonic to unlock;
 * with `forkUrl`, anvil forks that RPC (its chain id is the upstream's, `chainId` is not passed).
 */
export type SpawnAnvilOptions = { chainId: number; accounts: number; network: string; forkUrl?: string }

/** A running anvil: its JSON-RPC URL and process id; `stop()` kills it and resolves once it exited. */
export type AnvilProcess = { rpcUrl: string; pid: number; stop(): Promise<void> }

const STARTUP_TIMEOUT_MS = 15_000
// A fork fetches the upstream's latest block before it listens; a remote RPC can be slow.
const FORK_STARTUP_TIMEOUT_MS = 60_000

/** Path of the anvil binary of this platform, from npm `@foundry-rs/anvil-<os>-<arch>` (an optional dependency). */
export function resolveAnvilBinary(): string {
  const require = createRequire(import.meta.url)
  const os = process.platform === 'win32' ? 'win32' : process.platform
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const pkg = `@foundry-rs/anvil-${os}-${arch}`
  // Resolve from @foundry-rs/anvil's own location: the platform package is its optional dependency.
  const anvilMain = require.resolve('@foundry-rs/anvil/package.json')
  const platformJson = createRequire(anvilMain).resolve(`${pkg}/package.json`)
  return join(dirname(platformJson), 'bin', os === 'win32' ? 'anvil.exe' : 'anvil')
}

// A tiny POSIX-shell watchdog between us and anvil. It starts anvil in the background, reports its
// pid, then blocks reading its own stdin, a pipe from this process. That pipe closes when we call
// stop() and also when this process dies in any way (crash, SIGKILL), and then it kills anvil: no
// orphaned chains. SIGINT is ignored so a Ctrl-C in the terminal leaves the cleanup to that path.
// (The `cat` runs in the background reading a dup of stdin so `wait` stays interruptible by TERM.)
const WATCHDOG = [
  "trap '' INT",
  '"$0" "$@" </dev/null &',
  'pid=$!',
  'echo "watchdog: anvil pid $pid"',
  'exec 3<&0',
  "trap 'kill $pid 2>/dev/null; wait $pid; exit 143' TERM HUP",
  'cat <&3 >/dev/null &',
  'wait $!',
  'kill $pid 2>/dev/null',
  'wait $pid',
].join('\n')

/**
 * Spawns anvil on 127.0.0.1 with an OS-assigned port (parsed from its "Listening on" line) behind a
 * watchdog that kills it when this process goes away. Mining is automatic until told otherwise.
 */
export async function spawnAnvil(options: SpawnAnvilOptions): Promise<AnvilProcess> {
  const binary = resolveAnvilBinary()
  const args = [
    ...['--host', '127.0.0.1', '--port', '0'],
    // A fork keeps the upstream's chain id (checked by the caller) and caches nothing on disk: a
    // cache keyed by chain and block would serve stale state when a local upstream restarts.
    ...(options.forkUrl === undefined
      ? ['--chain-id', String(options.chainId)]
      : ['--fork-url', options.forkUrl, '--no-storage-caching']),
    ...['--accounts', String(options.accounts), '--color', 'never'],
  ]
  const child =
    process.platform === 'win32'
      ? spawn(binary, args, { stdio: 'pipe' })
      : spawn('/bin/sh', ['-c', WATCHDOG, binary, ...args], { stdio: 'pipe' })
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const log: string[] = []
  try {
    const timeoutMs = options.forkUrl === undefined ? STARTUP_TIMEOUT_MS : FORK_STARTUP_TIMEOUT_MS
    const { port, pid } = await waitUntilListening(child, log, { ...options, timeoutMs })
    let stopped: Promise<void> | undefined
    return {
      rpcUrl: `http://127.0.0.1:${port}`,
      pid: pid ?? child.pid ?? -1,
      stop: () => {
        stopped ??= stopChild(child, exited)
        return stopped
      },
    }
  } catch (error) {
    await stopChild(child, exited)
    throw error
  }
}

// The fork URL often carries an RPC provider's API key: it never reaches the error's log tail.
function waitUntilListening(
  child: ChildProcessWithoutNullStreams,
  log: string[],
  { network, timeoutMs, forkUrl }: { network: string; timeoutMs: number; forkUrl?: string | undefined },
) {
  return new Promise<{ port: number; pid: number | undefined }>((resolve, reject) => {
    let pid: number | undefined
    const remember = (line: string) => {
      log.push(forkUrl ? line.replaceAll(forkUrl, '<fork url>') : line)
      if (log.length > 40) {
        log.shift()
      }
    }
    const fail = (message: string, cause?: unknown) => {
      clearTimeout(timer)
      reject(createDevnetError(message, { network, output: log.join('\n') }, cause))
    }
    const timer = setTimeout(() => fail(`anvil for ${network} did not start listening`), timeoutMs)
    // Keep draining both pipes for the process lifetime: anvil logs every request and would block on a full pipe.
    createInterface({ input: child.stderr }).on('line', remember)
    createInterface({ input: child.stdout }).on('line', (line) => {
      remember(line)
      const pidMatch = /^watchdog: anvil pid (\d+)$/.exec(line)
      if (pidMatch) {
        pid = Number(pidMatch[1])
      }
      const listening = /Listening on [\d.]+:(\d+)/.exec(line)
      if (listening) {
        clearTimeout(timer)
        resolve({ port: Number(listening[1]), pid })
      }
    })
    child.once('error', (error) => fail(`anvil for ${network} could not be spawned`, error))
    child.once('close', (code) => fail(`anvil for ${network} exited with code ${code} before listening`))
  })
}

async function stopChild(child: ChildProcessWithoutNullStreams, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return
  }
  if (process.platform === 'win32') {
    child.kill()
  } else {
    // Closing the watchdog's stdin makes it kill anvil and wait for it before exiting itself.
    child.stdin.end()
  }
  await exited
}
