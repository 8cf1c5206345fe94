import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Listening } from '../sandbox/listen.js'
import { artifactDir, hasChromium, launchChromium, listenHarness } from '../testing/browser.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createFakeSessionRails } from '../testing/fake-session-rails.js'
import type { Harness } from '../testing/harness.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const phone = { width: 390, height: 844 }

describeEachDatabase(
  hasChromium
    ? 'hosted payment pages in Chromium'
    : 'hosted payment pages in Chromium (skipped: /usr/bin/chromium is absent)',
  (getDb, engine) => {
    let h: Harness
    let server: Listening
    let browser: Browser
    let shots: string

    beforeAll(async () => {
      if (!hasChromium) {
        return
      }
      ;({ h, server } = await listenHarness(getDb(), { rails: createFakeSessionRails }))
      browser = await launchChromium()
      shots = await artifactDir('payment-pages')
    })

    afterAll(async () => {
      await browser?.close()
      await server?.close()
    })

    const createPage = async (json: Json): Promise<Json> => {
      const res = await h.request('/api/v1/payments/pages', { method: 'POST', json })
      expect(res.status).toBe(201)
      return ((await res.json()) as Json).data
    }
    const sessionsOf = async (page: Json): Promise<Json[]> =>
      ((await (await h.request(`/api/v1/payments?pageReference=${page.reference}`)).json()) as Json).data
    const newTab = (): Promise<Page> => browser.newPage({ viewport: phone })
    const fitsPhone = (tab: Page) =>
      tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
    const shoot = async (tab: Page, name: string) => {
      if (engine === 'pglite') {
        await tab.screenshot({ path: join(shots, name), fullPage: true })
      }
    }

    test.skipIf(!hasChromium)(
      'products with quantities create the right session and continue to its checkout',
      async () => {
        const paymentPage = await createPage({
          title: 'Lagos coffee',
          description: 'Roasted this week',
          currency: 'USD',
          enableQuantity: true,
          products: [
            { title: 'Beans 1 kg', price: 18.5 },
            { title: 'Mug', price: 7 },
            { title: 'Retired', price: 1, isActive: false },
          ],
        })
        const tab = await newTab()
        await tab.goto(paymentPage.url)
        expect(await tab.locator('h1').textContent()).toBe('Lagos coffee')
        expect(await tab.getByText('Retired').count()).toBe(0)
        await tab.getByLabel('Quantity of Beans 1 kg').fill('2')
        await tab.getByLabel('Quantity of Mug').fill('1')
        await tab.getByLabel('Email').fill('ada@example.com')
        expect(await fitsPhone(tab)).toBe(true)
        await shoot(tab, 'payment-page-products.png')
        await tab.getByRole('button', { name: 'Continue to payment' }).click()
        await tab.waitForURL(/\/checkout\/ps_/)
        expect(await tab.locator('#fiat-amount').textContent()).toContain('44.00 USD')
        expect(await tab.locator('h1').textContent()).toBe('Lagos coffee')

        const [session] = (await sessionsOf(paymentPage)) as [Json]
        expect(session).toMatchObject({
          title: 'Lagos coffee',
          description: '2 × Beans 1 kg, 1 × Mug',
          amount: '44.00',
          currency: 'USD',
          customer: { email: 'ada@example.com' },
        })
        expect(session.metadata).toEqual({
          paymentPage: paymentPage.reference,
          items: [
            { productId: paymentPage.products[0].id, title: 'Beans 1 kg', quantity: 2, price: '18.50' },
            { productId: paymentPage.products[1].id, title: 'Mug', quantity: 1, price: '7.00' },
          ],
        })
        expect(new URL(tab.url()).pathname).toBe(`/checkout/${session.reference}`)
        await tab.close()
      },
    )

    test.skipIf(!hasChromium)(
      'an open amount below minAmount is refused next to the field, announced, then accepted',
      async () => {
        const paymentPage = await createPage({ title: 'Tips', currency: 'NGN', minAmount: 1000 })
        const tab = await newTab()
        await tab.goto(paymentPage.url)
        expect(await tab.locator('#amount-hint').textContent()).toBe('At least 1000.00 NGN')
        await tab.getByLabel('Amount (NGN)').fill('999.99')
        await tab.getByRole('button', { name: 'Continue to payment' }).click()
        await tab.waitForSelector('#amount-error')
        const input = tab.getByLabel('Amount (NGN)')
        expect(await input.getAttribute('aria-invalid')).toBe('true')
        expect(await input.getAttribute('aria-describedby')).toBe('amount-hint amount-error')
        expect(await input.inputValue()).toBe('999.99')
        expect(await tab.getByRole('alert').textContent()).toBe('The least you can pay is 1000.00 NGN.')
        expect(await fitsPhone(tab)).toBe(true)
        await shoot(tab, 'payment-page-amount-error.png')
        expect(await sessionsOf(paymentPage)).toEqual([])

        await input.fill('abc')
        await tab.getByRole('button', { name: 'Continue to payment' }).click()
        await tab.waitForSelector('#amount-error')
        expect(await tab.getByRole('alert').textContent()).toContain('like 1500 or 1500.50')

        await tab.getByLabel('Amount (NGN)').fill('1,250.50')
        await tab.getByRole('button', { name: 'Continue to payment' }).click()
        await tab.waitForURL(/\/checkout\/ps_/)
        expect(await tab.locator('#fiat-amount').textContent()).toContain('1250.50 NGN')
        const sessions = await sessionsOf(paymentPage)
        expect(sessions.map((s) => s.amount)).toEqual(['1250.50'])
        await tab.close()
      },
    )

    test.skipIf(!hasChromium)(
      'without quantities a product is ticked; nothing ticked is refused',
      async () => {
        const paymentPage = await createPage({
          title: 'Workshop',
          currency: 'USD',
          products: [
            { title: 'Seat', price: 30 },
            { title: 'Recording', price: 10 },
          ],
        })
        const tab = await newTab()
        await tab.goto(paymentPage.url)
        await tab.getByRole('button', { name: 'Continue to payment' }).click()
        await tab.waitForSelector('#products-error')
        expect(await tab.getByRole('alert').textContent()).toBe('Choose at least one item.')
        await tab.getByLabel(/Recording/).check()
        await tab.getByRole('button', { name: 'Continue to payment' }).click()
        await tab.waitForURL(/\/checkout\/ps_/)
        expect(await tab.locator('#fiat-amount').textContent()).toContain('10.00 USD')
        await tab.close()
      },
    )

    test.skipIf(!hasChromium)(
      'an inactive page says so and offers no form; a deleted one says it was removed',
      async () => {
        const paymentPage = await createPage({ title: 'Closed shop', currency: 'USD', isActive: false })
        const tab = await newTab()
        const res = await tab.goto(paymentPage.url)
        expect(res?.status()).toBe(200)
        expect(await tab.getByRole('status').textContent()).toBe(
          'This page is not accepting payments right now.',
        )
        expect(await tab.locator('form').count()).toBe(0)
        await shoot(tab, 'payment-page-inactive.png')
        // A form posted before the page closed is refused, and no session is made.
        const posted = await tab.evaluate(async (url) => {
          const r = await fetch(url, { method: 'POST', body: new URLSearchParams({ amount: '5' }) })
          return r.status
        }, paymentPage.url)
        expect(posted).toBe(409)
        expect(await sessionsOf(paymentPage)).toEqual([])

        await h.request(`/api/v1/payments/pages/${paymentPage.id}`, { method: 'DELETE' })
        const gone = await tab.goto(paymentPage.url)
        expect(gone?.status()).toBe(410)
        expect(await tab.getByRole('status').textContent()).toBe(
          'This payment page has been removed by the merchant.',
        )
        await tab.close()
      },
    )

    test.skipIf(!hasChromium)('a post from another site is refused', async () => {
      const paymentPage = await createPage({ title: 'Guarded', currency: 'USD' })
      const res = await h.app.request(`/pay/${paymentPage.reference}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
        },
        body: 'amount=5',
      })
      expect(res.status).toBe(403)
      expect(await sessionsOf(paymentPage)).toEqual([])
    })
  },
)
