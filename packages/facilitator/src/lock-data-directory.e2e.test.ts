import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { DATA_DIRECTORY_LOCK_FILE, lockDataDirectory } from './lock-data-directory.js'
import { openSettlementDatabase } from './open-settlement-database.js'

describe('lockDataDirectory', () => {
  let dir: string
  let child: ChildProcess | undefined
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-lock-'))
  })
  afterEach(async () => {
    child?.kill('SIGKILL')
    child = undefined
    await rm(dir, { recursive: true, force: true })
  })

  const startOtherProcess = async () => {
    child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
    await new Promise((resolve) => child?.once('spawn', resolve))
    return child.pid as number
  }

  test('default: writes this PID, refuses a second holder, and release removes the file', async () => {
    const lock = await lockDataDirectory(dir)
    expect(JSON.parse(await readFile(join(dir, DATA_DIRECTORY_LOCK_FILE), 'utf8'))).toMatchObject({
      pid: process.pid,
    })
    await expect(lockDataDirectory(dir)).rejects.toMatchObject({
      code: 'data_directory_locked',
      context: { dataDir: dir, pid: process.pid },
      message: `the data directory ${dir} is in use by process ${process.pid} (this one)`,
    })
    await lock.release()
    await (await lockDataDirectory(dir)).release()
  })

  test('behavior: a live holder is named; once it is dead its lock is stale and taken over', async () => {
    const pid = await startOtherProcess()
    await writeFile(join(dir, DATA_DIRECTORY_LOCK_FILE), JSON.stringify({ pid }))
    await expect(lockDataDirectory(dir)).rejects.toMatchObject({
      code: 'data_directory_locked',
      context: { pid },
    })
    child?.kill('SIGKILL')
    await new Promise((resolve) => child?.once('exit', resolve))
    const lock = await lockDataDirectory(dir)
    expect(JSON.parse(await readFile(lock.path, 'utf8')).pid).toBe(process.pid)
    await lock.release()
  })

  test('behavior: release leaves a lock another process took over', async () => {
    const lock = await lockDataDirectory(dir)
    const pid = await startOtherProcess()
    await writeFile(lock.path, JSON.stringify({ pid }))
    await lock.release()
    expect(JSON.parse(await readFile(lock.path, 'utf8')).pid).toBe(pid)
  })

  test('behavior: openSettlementDatabase holds the lock until destroy', async () => {
    const db = await openSettlementDatabase({ dataDir: dir })
    await expect(openSettlementDatabase({ dataDir: dir })).rejects.toMatchObject({
      code: 'data_directory_locked',
    })
    await db.destroy()
    await (await openSettlementDatabase({ dataDir: dir })).destroy()
  })
})
