// `prepack` of every package (npm pack / npm publish run it in the package's directory): builds the
// package and the packages it references (tsc -b, a no-op when dist/ is current) and copies the
// repository's LICENSE next to its package.json, so no tarball ships stale JavaScript or lacks the
// license. Plain JavaScript: it runs before anything is built.
import { spawnSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const built = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { stdio: 'inherit' })
if (built.status !== 0) {
  process.exit(built.status ?? 1)
}
copyFileSync(join(root, 'LICENSE'), 'LICENSE')
