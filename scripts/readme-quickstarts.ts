// The README quickstarts are the files in examples/quickstart, copied verbatim: a fenced block right
// after a `<!-- quickstart: <path> -->` marker holds that file. test/e2e/readme-quickstarts.test.ts
// fails when a block drifts from its file (the consumer test runs the files);
//   node --conditions=tollgate-source --import tsx scripts/readme-quickstarts.ts --write
// rewrites the blocks from the files.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Markdown files that may hold quickstart blocks, relative to the repository root. */
export const QUICKSTART_READMES = [
  'README.md',
  'packages/agent/README.md',
  'packages/facilitator/README.md',
  'packages/middleware/README.md',
]

const BLOCK = /<!-- quickstart: (\S+) -->\n```(\w*)\n([\s\S]*?)```/g

/** The quickstart blocks of `markdown`: the file each names and the code it shows. */
export function findQuickstartBlocks(markdown: string): { path: string; code: string }[] {
  return [...markdown.matchAll(BLOCK)].map((match) => ({ path: match[1] ?? '', code: match[3] ?? '' }))
}

/** `markdown` with every quickstart block replaced by the current content of its file. */
export async function syncQuickstartBlocks(markdown: string, root: string): Promise<string> {
  let out = ''
  let last = 0
  for (const match of markdown.matchAll(BLOCK)) {
    const [whole, path = '', language = ''] = match
    const code = await readFile(join(root, path), 'utf8')
    out += `${markdown.slice(last, match.index)}<!-- quickstart: ${path} -->\n\`\`\`${language}\n${code}\`\`\``
    last = match.index + whole.length
  }
  return out + markdown.slice(last)
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write')) {
  const root = join(import.meta.dirname, '..')
  for (const file of QUICKSTART_READMES) {
    const path = join(root, file)
    await writeFile(path, await syncQuickstartBlocks(await readFile(path, 'utf8'), root))
  }
}
