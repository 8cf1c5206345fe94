import { readFileSync, unlinkSync } from 'node:fs'
import { readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '@tollgate/core'
import './errors.js'

/** The lock file `lockDataDirectory` keeps in a PGlite data directory. */
export const DATA_DIRECTORY_LOCK_FILE = 'tollgate.lock'

/** A held data-directory lock; `release()` removes the lock file (if it is still this process's). */
export type DataDirectoryLock = { path: string; release(): Promise<void> }

/**
 * Takes the one-process lock of a PGlite data directory (PGlite is a single embedded Postgres:
 * two processes on one directory corrupt it or lose each other's writes). Writes
 * `<dataDir>/tollgate.lock` holding this process's PID; a lock whose PID is no longer running is
 * stale and taken over. Throws `data_directory_locked` naming the holder's PID otherwise (also when
 * the holder is this process). See docs/service.md "One process per data directory".
 */
export async function lockDataDirectory(dataDir: string): Promise<DataDirectoryLock> {
  const path = join(dataDir, DATA_DIRECTORY_LOCK_FILE)
  const content = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(path, content, { flag: 'wx' })
      // A process ending without closing its database still frees the directory.
      const onExit = () => releaseLockSync(path)
      process.once('exit', onExit)
      return {
        path,
        release: async () => {
          process.off('exit', onExit)
          await releaseLock(path)
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error
      }
    }
    const holder = await readHolder(path)
    if (holder !== undefined && isRunning(holder)) {
      throw new AppError('data_directory_locked', {
        context: { dataDir, pid: holder },
        message: `the data directory ${dataDir} is in use by process ${holder}${holder === process.pid ? ' (this one)' : ''}`,
      })
    }
    // Stale (its process is gone) or unreadable: remove it and try once more; if another process
    // took it over meanwhile, its fresh file makes the second attempt fail with its PID.
    await unlink(path).catch(() => {})
  }
  const holder = await readHolder(path)
  throw new AppError('data_directory_locked', {
    context: { dataDir, pid: holder ?? 0 },
    message: `the data directory ${dataDir} is in use by process ${holder ?? 'unknown'}`,
  })
}

async function readHolder(path: string): Promise<number | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as { pid?: unknown }
    return typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0
      ? parsed.pid
      : undefined
  } catch {
    return undefined
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function releaseLockSync(path: string): void {
  try {
    if ((JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown }).pid === process.pid) {
      unlinkSync(path)
    }
  } catch {
    // Already gone or unreadable: nothing of ours to remove.
  }
}

async function releaseLock(path: string): Promise<void> {
  if ((await readHolder(path)) === process.pid) {
    await unlink(path).catch(() => {})
  }
}
