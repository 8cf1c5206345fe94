import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  DEFAULT_EVM_NETWORKS,
  type LocalDevnet,
  SOLANA_DEVNET_NETWORK,
  startDevnet,
  toViemChain,
  usdcLikeAbi,
} from '@tollgate/devnet'
import type { Browser } from 'playwright-core'
import { type Address, createPublicClient, createWalletClient, type Hash, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../http/create-logger.js'
import { createChainRegistry } from '../rails/chains/create-chain-registry.js'
import { createJsonRpc } from '../rails/chains/json-rpc.js'
import type { Listening } from '../sandbox/listen.js'
import { type Sandbox, startSandbox } from '../sandbox/start-sandbox.js'
import { artifactDir, hasChromium, launchChromium, listenMerchantSite } from '../testing/browser.js'
import { sendSplTransfer } from '../testing/send-solana-transfer.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const BASE = 'eip155:84532'

// The whole sandbox (devnet, real rails with the EVM watcher, session handlers) and a customer in Chromium.
describe(
  hasChromium
    ? 'hosted checkout paid on the devnet in Chromium'
    : 'hosted checkout paid on the devnet in Chromium (skipped: /usr/bin/chromium is absent)',
  () => {
    let dir: string
    let sandbox: Sandbox
    let merchantSite: Listening
    let browser: Browser
    let devnet: LocalDevnet

    beforeAll(async () => {
      if (!hasChromium) {
        return
      }
      dir = await mkdtemp(join(tmpdir(), 'tollgate-checkout-'))
      sandbox = await startSandbox({
        port: 0,
        dataDir: join(dir, 'data'),
        logger: createLogger({ level: 'silent' }),
        watcherIntervalMs: 100,
        startDevnet: async () => {
          // Base on anvil and Solana on LiteSVM (in process); kept to advance Solana's blocks.
          devnet = await startDevnet({
            evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
          })
          return devnet
        },
      })
      merchantSite = await listenMerchantSite()
      browser = await launchChromium()
      // Two chains, the sandbox and Chromium start here: minutes on a loaded machine, not a speed claim.
    }, 240_000)

    afterAll(async () => {
      await browser?.close()
      await merchantSite?.close()
      await sandbox?.stop()
      if (dir) {
        await rm(dir, { recursive: true, force: true })
      }
    })

    const api = async (path: string, body?: Json): Promise<Json> => {
      const res = await fetch(`${sandbox.manifest.apiUrl}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json', 'x-api-key': sandbox.manifest.apiKey },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      expect(res.status, path).toBe(200)
      return ((await res.json()) as Json).data
    }

    const payer = () => {
      const wallet = sandbox.manifest.wallets.find((w) => w.network === BASE)
      const network = sandbox.devnet.networks[BASE]
      if (!wallet || !network) {
        throw new Error('no base payer')
      }
      const chain = toViemChain(network)
      const client = createWalletClient({
        account: privateKeyToAccount(wallet.privateKey as Hash),
        chain,
        transport: http(),
      })
      const reader = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
      return {
        usdc: network.assets.USDC?.address as Address,
        payUsdc: async (to: string, amount: bigint) => {
          const hash = await client.writeContract({
            address: network.assets.USDC?.address as Address,
            abi: usdcLikeAbi,
            functionName: 'transfer',
            args: [to as Address, amount],
          })
          await reader.waitForTransactionReceipt({ hash })
        },
      }
    }

    test.skipIf(!hasChromium)(
      'a customer chooses USDC on Base, pays from a wallet and lands on successUrl',
      async () => {
        const session = await api('/payments', {
          title: 'Devnet order',
          amount: '12.50',
          currency: 'USD',
          successUrl: `${merchantSite.url}/success`,
          cancelUrl: `${merchantSite.url}/cancel`,
        })
        const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
        await page.goto(session.url)
        const offered = await page
          .locator('#option option')
          .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))
        expect(offered).toContain('USDC:base')
        await page.getByLabel('Pay with').selectOption('USDC:base')
        await page.getByRole('button', { name: 'Continue' }).click()
        await page.waitForSelector('#address')
        const address = (await page.textContent('#address')) ?? ''
        const amount = (await page.textContent('#amount')) ?? ''
        expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/)
        const atomic = BigInt(amount.replace('.', ''))
        const wallet = payer()
        expect(await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).toBe(
          `ethereum:${wallet.usdc}@84532/transfer?address=${address}&uint256=${atomic}`,
        )

        expect(await page.locator('#status').getAttribute('data-status')).toBe('waiting')
        // The sandbox's Base needs one confirmation, so the page goes from waiting to paid and on to successUrl.
        await wallet.payUsdc(address, atomic)
        await page.waitForURL(`${merchantSite.url}/success`, { timeout: 30_000 })
        const paid = await api(`/payments/reference/${session.reference}`)
        expect(paid).toMatchObject({ state: 'closed', payment: { status: 'completed', address } })
        await page.close()
      },
    )

    test.skipIf(!hasChromium)(
      'a customer chooses USDC on Solana, sees the Solana Pay request, pays on LiteSVM and lands on successUrl',
      async () => {
        const session = await api('/payments', {
          title: 'Solana order',
          amount: '7.25',
          currency: 'USD',
          successUrl: `${merchantSite.url}/success`,
        })
        const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
        await page.goto(session.url)
        await page.getByLabel('Pay with').selectOption('USDC:solana')
        await page.getByRole('button', { name: 'Continue' }).click()
        await page.waitForSelector('#address')
        const address = (await page.textContent('#address')) ?? ''
        const amount = (await page.textContent('#amount')) ?? ''
        expect(address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
        expect(await page.textContent('#address-label')).toContain('Solana')
        const network = devnet.networks[SOLANA_DEVNET_NETWORK]
        const mint = network?.assets.USDC?.address
        const solanaPay = `solana:${address}?amount=${amount.replace(/\.?0+$/, '')}&spl-token=${mint}`
        expect(await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).toBe(solanaPay)
        expect(await page.locator('.qr').getAttribute('aria-label')).toContain(solanaPay)
        expect(await page.locator('.qr svg').count()).toBe(1)
        expect(await page.locator('#status').getAttribute('data-status')).toBe('waiting')
        await page.screenshot({
          path: join(await artifactDir('checkout'), 'checkout-solana.png'),
          fullPage: true,
        })

        // A Solana Pay wallet creates the session address's token account when it is missing; the
        // devnet's fund (0 USDC) does that step here, then the payer sends TransferChecked.
        await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address, asset: 'USDC', amount: 0n })
        const payer = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
        const usdc = createChainRegistry({ networks: devnet.networks })
          .get('test', 'solana')
          ?.assets.find((a) => a.symbol === 'USDC')
        if (!payer || !usdc || !network) {
          throw new Error('no Solana payer or USDC on the devnet')
        }
        const rpc = createJsonRpc(network.rpcUrl, { network: SOLANA_DEVNET_NETWORK })
        await sendSplTransfer(rpc, {
          secret: payer.privateKey,
          payer: payer.address,
          owner: address,
          asset: usdc,
          amount: BigInt(amount.replace('.', '')),
        })
        // Blocks on top of the transfer's, so the sandbox's one Solana confirmation is reached.
        devnet.solana?.advanceBlocks(2)
        await page.waitForURL(`${merchantSite.url}/success`, { timeout: 30_000 })
        const paid = await api(`/payments/reference/${session.reference}`)
        expect(paid).toMatchObject({
          state: 'closed',
          payment: { status: 'completed', chain: 'solana', asset: 'USDC', address },
        })
        await page.close()
      },
    )

    test.skipIf(!hasChromium)(
      'the sandbox home links the docs and a sample checkout that opens',
      async () => {
        const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
        const home = new URL(sandbox.manifest.apiUrl).origin
        await page.goto(`${home}/`)
        expect(await page.textContent('h1')).toBe('Tollgate sandbox')
        expect(await page.getByRole('link', { name: /API reference/ }).getAttribute('href')).toBe('/docs')
        expect(await page.locator('dd code').allTextContents()).toContain(sandbox.manifest.apiUrl)
        await page.screenshot({
          path: join(await artifactDir('checkout'), 'sandbox-home.png'),
          fullPage: true,
        })
        await page.getByRole('link', { name: 'Sample checkout' }).click()
        await page.waitForURL(/\/checkout\/ps_/)
        expect(await page.locator('#status').getAttribute('data-status')).toBe('choose')
        expect(await page.textContent('h1')).toBe('Sample order')
        await page.close()
      },
    )
  },
)
