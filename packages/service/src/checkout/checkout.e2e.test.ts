import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { inTransaction } from '../db/in-transaction.js'
import { expirePaymentSession } from '../payments/expire-payment-session.js'
import { registerSessionHandlers } from '../payments/register-session-handlers.js'
import type { IncomingTransfer } from '../rails/types.js'
import type { Listening } from '../sandbox/listen.js'
import {
  artifactDir,
  hasChromium,
  launchChromium,
  listenHarness,
  listenMerchantSite,
} from '../testing/browser.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails, type FakeSessionRails } from '../testing/fake-session-rails.js'
import type { Harness } from '../testing/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const phone = { width: 390, height: 844 }

describeEachDatabase(
  hasChromium
    ? 'hosted checkout in Chromium'
    : 'hosted checkout in Chromium (skipped: /usr/bin/chromium is absent)',
  (getDb, engine) => {
    let h: Harness
    let rails: FakeSessionRails
    let server: Listening
    let merchantSite: Listening
    let browser: Browser
    let shots: string
    let offsetMs = 0

    beforeAll(async () => {
      if (!hasChromium) {
        return
      }
      ;({ h, server } = await listenHarness(getDb(), {
        rails: (base) => {
          rails = createFakeSessionRails(base)
          return rails
        },
        checkout: { pollMs: 100 },
      }))
      h.deps.clock = { now: () => new Date(Date.now() + offsetMs) }
      registerSessionHandlers(h.deps)
      merchantSite = await listenMerchantSite()
      browser = await launchChromium()
      shots = await artifactDir('checkout')
    })

    afterAll(async () => {
      await browser?.close()
      await server?.close()
      await merchantSite?.close()
    })

    const open = async (extra: Json = {}): Promise<Json> => {
      const json = {
        title: 'Coffee beans',
        description: '1 kg, whole bean',
        amount: '25.00',
        currency: 'USD',
        successUrl: `${merchantSite.url}/success`,
        cancelUrl: `${merchantSite.url}/cancel`,
        ...extra,
      }
      const res = await h.request('/api/v1/payments', { method: 'POST', json })
      expect(res.status).toBe(200)
      return ((await res.json()) as Json).data
    }
    const read = async (session: Json): Promise<Json> =>
      ((await (await h.request(`/api/v1/payments/reference/${session.reference}`)).json()) as Json).data
    const transfer = (session: Json, amount: bigint, status: 'seen' | 'confirmed'): IncomingTransfer => ({
      id: `itr_${session.reference}_${amount}`,
      environment: 'test',
      chain: 'base',
      network: 'eip155:84532',
      asset: 'USDC',
      amount,
      decimals: 6,
      txHash: `0x${randomBytes(32).toString('hex')}`,
      logIndex: 0,
      fromAddress: `0x${'1'.repeat(40)}`,
      toAddress: session.payment.address,
      blockNumber: 1n,
      confirmations: status === 'confirmed' ? 1 : 0,
      status,
      address: {
        id: 'addr_x',
        merchantId: h.a.id,
        environment: 'test',
        chain: 'base',
        network: 'eip155:84532',
        address: session.payment.address,
        purpose: 'session',
        ownerId: session.id,
        createdAt: h.deps.clock.now(),
      },
      seenAt: h.deps.clock.now(),
      confirmedAt: status === 'confirmed' ? h.deps.clock.now() : null,
    })
    const deliver = (t: IncomingTransfer) => inTransaction(h.deps.db, (trx) => rails.deliver(trx, t))
    const newPage = async (): Promise<Page> => browser.newPage({ viewport: phone })
    const statusOf = (page: Page) => page.locator('#status').getAttribute('data-status')
    const fitsPhone = (page: Page) =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

    test.skipIf(!hasChromium)(
      'open, choose asset and chain, pay, turn paid and go to successUrl',
      async () => {
        const session = await open()
        const page = await newPage()
        await page.goto(session.url)
        expect(await statusOf(page)).toBe('choose')
        await expect.poll(() => page.locator('#fiat-amount').textContent()).toContain('25.00 USD')
        expect(await page.locator('h1').textContent()).toBe('Coffee beans')
        expect(await fitsPhone(page)).toBe(true)
        if (engine === 'pglite') {
          await page.screenshot({ path: join(shots, 'checkout-choose.png'), fullPage: true })
        }

        await page.getByLabel('Pay with').selectOption('USDC:base')
        await page.getByRole('button', { name: 'Continue' }).click()
        await page.waitForSelector('#address')
        const shown = {
          address: await page.textContent('#address'),
          amount: await page.textContent('#amount'),
        }
        const locked = await read(session)
        expect(locked.payment).toMatchObject({ asset: 'USDC', chain: 'base' })
        expect(shown).toEqual({ address: locked.payment.address, amount: locked.payment.amount })
        const uri = await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')
        expect(uri).toBe(
          `ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=${locked.payment.address}&uint256=${BigInt(locked.payment.amount.replace('.', ''))}`,
        )
        expect(await page.locator('.qr svg').count()).toBe(1)
        expect(await statusOf(page)).toBe('waiting')
        expect(await fitsPhone(page)).toBe(true)
        if (engine === 'pglite') {
          await page.screenshot({ path: join(shots, 'checkout-pay.png'), fullPage: true })
        }

        const atomic = BigInt(locked.payment.amount.replace('.', ''))
        await deliver(transfer(locked, atomic, 'seen'))
        await expect.poll(() => statusOf(page)).toBe('seen')
        await deliver(transfer(locked, atomic, 'confirmed'))
        await page.waitForURL(`${merchantSite.url}/success`)
        expect(await page.textContent('h1')).toBe('Merchant: /success')
        await page.close()
      },
    )

    test.skipIf(!hasChromium)('a partial payment shows the amount still due', async () => {
      const session = await open({ asset: 'USDC', chain: 'base', customer: { email: 'payer@example.com' } })
      expect(session.payment.address).toMatch(/^0x/)
      const page = await newPage()
      await page.goto(session.url)
      expect(await statusOf(page)).toBe('waiting')
      expect(await page.locator('#due').isHidden()).toBe(true)
      const atomic = BigInt(session.payment.amount.replace('.', ''))
      await deliver(transfer(session, 10_000_000n, 'confirmed'))
      await expect.poll(() => statusOf(page)).toBe('partial')
      const due = (atomic - 10_000_000n).toString().padStart(7, '0')
      const dueText = `${due.slice(0, -6)}.${due.slice(-6)}`
      expect(await page.textContent('#amount-due')).toBe(dueText)
      expect(await page.textContent('#amount-received')).toBe('10.000000')
      expect(await page.locator('#due').isVisible()).toBe(true)
      if (engine === 'pglite') {
        await page.screenshot({ path: join(shots, 'checkout-partial.png'), fullPage: true })
      }
      await page.close()
    })

    test.skipIf(!hasChromium)('an expired session shows expired and links back to the merchant', async () => {
      const session = await open({ asset: 'USDC', chain: 'base' })
      offsetMs += 2 * 3600_000
      await expirePaymentSession(h.deps, { sessionId: session.id })
      const page = await newPage()
      await page.goto(session.url)
      expect(await statusOf(page)).toBe('expired')
      expect(await page.textContent('#status')).toContain('expired')
      expect(await page.getByRole('link', { name: /Back to/ }).getAttribute('href')).toBe(
        `${merchantSite.url}/cancel`,
      )
      expect(await page.locator('#address').count()).toBe(0)
      expect(await fitsPhone(page)).toBe(true)
      if (engine === 'pglite') {
        await page.screenshot({ path: join(shots, 'checkout-expired.png'), fullPage: true })
      }
      await page.close()
    })

    test.skipIf(!hasChromium)('cancel goes to cancelUrl', async () => {
      const session = await open()
      const page = await newPage()
      await page.goto(session.url)
      await page.getByRole('link', { name: /Cancel and return/ }).click()
      await page.waitForURL(`${merchantSite.url}/cancel`)
      expect(await page.textContent('h1')).toBe('Merchant: /cancel')
      await page.close()
    })
  },
)
