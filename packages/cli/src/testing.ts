import { runTollgate } from './run-tollgate.js'
import type { TollgateIo } from './tollgate-context.js'

/** Runs `tollgate <argv>` in process with captured output (tests): exit code, stdout and stderr. */
export async function runCaptured(
  argv: string[],
  options: {
    env?: Record<string, string | undefined>
    fetch?: TollgateIo['fetch']
    signal?: AbortSignal
  } = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const decoder = new TextDecoder()
  const code = await runTollgate(argv, {
    env: options.env ?? {},
    stdout: {
      write: (chunk: string | Uint8Array) => {
        out += typeof chunk === 'string' ? chunk : decoder.decode(chunk)
      },
    },
    stderr: {
      write: (chunk: string) => {
        err += chunk
      },
    },
    fetch: options.fetch ?? (() => Promise.reject(new Error('no network in this test'))),
    signal: options.signal ?? new AbortController().signal,
  })
  return { code, out, err }
}
