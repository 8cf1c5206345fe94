import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { listen } from '../sandbox/listen.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

const root = resolve(import.meta.dirname, '../../../..')
const example = 'examples/merchant-api-client.ts'

test("behavior: the README's typed-client quickstart is exactly examples/merchant-api-client.ts", async () => {
  const [readme, source] = await Promise.all([
    readFile(resolve(root, 'README.md'), 'utf8'),
    readFile(resolve(root, example), 'utf8'),
  ])
  expect(readme).toContain(`<!-- quickstart: ${example} -->\n\`\`\`ts\n${source}\`\`\`\n`)
})

describeEachDatabase('the typed-client quickstart against the service', (getDb) => {
  let h: Harness
  let server: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    h = await createHarness(getDb())
    server = await listen((request) => h.app.fetch(request), { port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    await server?.close()
  })

  test('default: the example creates a payment session and reads it back', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=tollgate-source', '--import', 'tsx', example],
      {
        cwd: root,
        env: { ...process.env, TOLLGATE_URL: server.url, TOLLGATE_API_KEY: h.a.testKey },
        timeout: 60_000,
      },
    )
    const printed = JSON.parse(stdout) as {
      reference: string
      checkout: string
      amount: string
    }
    expect(printed).toMatchObject({
      reference: expect.stringMatching(/^ps_/),
      amount: '25.00',
    })
    expect(printed.checkout).toContain(`/checkout/${printed.reference}`)
  })
})
