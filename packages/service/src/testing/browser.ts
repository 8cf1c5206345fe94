import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Kysely } from 'kysely'
import { type Browser, chromium } from 'playwright-core'
import type { Database } from '../db/database.js'
import { type Listening, listen } from '../sandbox/listen.js'
import { createHarness, type Harness } from './harness.js'

/** Debian's Chromium, which browser tests drive (scripts or `apt-get install chromium` provide it). */
export const chromiumPath = '/usr/bin/chromium'

/** Whether {@link chromiumPath} exists; a browser test may skip only when it does not. */
export const hasChromium = existsSync(chromiumPath)

/** Launches headless Chromium with the flags that keep it quiet and offline in tests. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
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
}

/** Where browser tests put their screenshots: `test-artifacts/<group>/` at the repository root (gitignored). */
export async function artifactDir(group: string): Promise<string> {
  const dir = join(import.meta.dirname, '../../../../test-artifacts', group)
  await mkdir(dir, { recursive: true })
  return dir
}

/** A stand-in merchant site for `successUrl`/`cancelUrl`: every path answers `<h1>Merchant: <path></h1>`. */
export function listenMerchantSite(): Promise<Listening> {
  return listen(
    (request) =>
      new Response(`<h1>Merchant: ${new URL(request.url).pathname}</h1>`, {
        headers: { 'content-type': 'text/html' },
      }),
    { port: 0, host: '127.0.0.1' },
  )
}

/**
 * A harness served on a real local port, with that port as its public base URL, so the hosted pages'
 * URLs (session and payment page `url`) open in the browser.
 */
export async function listenHarness(
  db: Kysely<Database>,
  options: Parameters<typeof createHarness>[1] = {},
): Promise<{ h: Harness; server: Listening }> {
  // The app is created after the port is known, since hosted URLs start with the public base URL.
  let app: Harness['app'] | undefined
  const server = await listen((request) => (app as Harness['app']).fetch(request), {
    port: 0,
    host: '127.0.0.1',
  })
  const h = await createHarness(db, {
    ...options,
    settings: { ...options.settings, publicBaseUrl: server.url },
  })
  app = h.app
  return { h, server }
}
