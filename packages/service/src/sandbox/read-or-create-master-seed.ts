import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { AppError } from '@tollgate/core'

/**
 * The sandbox's master seed at `path` (deposit addresses, and the key of stored secrets): 64 random
 * bytes (hex) written once with mode 0600, read on every later start; never logged, never in the manifest.
 */
export async function readOrCreateMasterSeed(path: string): Promise<string> {
  try {
    const seed = (await readFile(path, 'utf8')).trim()
    if (/^[0-9a-f]{128}$/.test(seed)) {
      return seed
    }
    throw new AppError('internal_error', { message: `${path} does not hold a 64-byte hex master seed` })
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') {
      throw error
    }
  }
  const seed = randomBytes(64).toString('hex')
  await mkdir(dirname(path), { recursive: true })
  // 'wx': never overwrite a seed another process wrote meanwhile (addresses would become unrecoverable).
  await writeFile(path, `${seed}\n`, { mode: 0o600, flag: 'wx' })
  return seed
}
