/** Where the `tollgate` commands read their environment and write their output (tests inject their own). */
export type TollgateIo = {
  env: Record<string, string | undefined>
  stdout: { write(chunk: string | Uint8Array): unknown }
  stderr: { write(chunk: string): unknown }
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>
  /** Aborted on Ctrl-C: the long-running commands (`listen`, `worker`) stop then. */
  signal: AbortSignal
}

/** What every command gets: the io, and where it records its exit code (0 unless set). */
export type TollgateContext = {
  io: TollgateIo
  setExitCode(code: number): void
}

/** A usage error a command raises itself (the runner prints the command's usage, exit 2). */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** Writes `text` and a newline to stdout. */
export function writeLine(io: TollgateIo, text: string): void {
  io.stdout.write(`${text}\n`)
}

/** Writes `text` and a newline to stderr. */
export function writeError(io: TollgateIo, text: string): void {
  io.stderr.write(`${text}\n`)
}
