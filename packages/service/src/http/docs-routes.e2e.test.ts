import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Listening, listen } from '../sandbox/listen.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'

// `/docs` must work offline (docs/service.md "API documentation"): in Chromium with every request
// that leaves the loopback interface aborted, the page renders every operation of the document.
// CI installs Debian's chromium (scripts/ensure-chromium.sh); without it the test is skipped.

const CHROMIUM = '/usr/bin/chromium'
const hasChromium = existsSync(CHROMIUM)
const title = hasChromium
  ? 'behavior: /docs renders every operation with the network cut off'
  : `behavior: /docs renders every operation with the network cut off (skipped: ${CHROMIUM} is not installed)`

describeEachDatabase('API documentation in a browser', (getDb, engine) => {
  let h: Harness
  let server: Listening
  beforeAll(async () => {
    h = await createHarness(getDb())
    server = await listen((request) => h.app.fetch(request), { port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    await server?.close()
  })

  // One browser run is enough: the page does not depend on the database engine.
  test.skipIf(!hasChromium || engine !== 'pglite')(title, async () => {
    const doc = (await (await h.request('/api/v1/openapi.json', { key: null })).json()) as {
      paths: Record<string, Record<string, unknown>>
    }
    const operations = Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0)
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
    const blocked: string[] = []
    try {
      const context = await browser.newContext()
      await context.route('**/*', (route) => {
        const { hostname } = new URL(route.request().url())
        if (hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]') {
          return route.continue()
        }
        blocked.push(route.request().url())
        return route.abort('internetdisconnected')
      })
      const page = await context.newPage()
      await page.goto(`${server.url}/docs`)
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 })
      expect(await page.locator('.opblock').count()).toBe(operations)
      expect(await page.locator('.opblock-summary-path').allTextContents()).toContain('/api/v1/balance')
      expect(blocked).toEqual([])
    } finally {
      await browser.close()
    }
  })
})
