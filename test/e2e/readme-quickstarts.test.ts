import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { findQuickstartBlocks, QUICKSTART_READMES } from '../../scripts/readme-quickstarts.js'

// The READMEs show the quickstarts the consumer test runs (consumer.test.ts), byte for byte.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

describe('README quickstarts', () => {
  test('default: every quickstart block equals its file in examples/quickstart', async () => {
    for (const readme of QUICKSTART_READMES) {
      for (const block of findQuickstartBlocks(await readFile(join(root, readme), 'utf8'))) {
        expect(block.code, `${readme}: ${block.path} (scripts/readme-quickstarts.ts --write)`).toBe(
          await readFile(join(root, block.path), 'utf8'),
        )
      }
    }
  })

  test('default: the root README shows every file in examples/quickstart', async () => {
    const shown = findQuickstartBlocks(await readFile(join(root, 'README.md'), 'utf8')).map((b) => b.path)
    const files = (await readdir(join(root, 'examples/quickstart'))).map((f) => `examples/quickstart/${f}`)
    expect(shown.sort()).toEqual(expect.arrayContaining(files.sort()))
    expect(files.length).toBeGreaterThan(0)
  })
})
