import {
  DEFAULT_EVM_NETWORKS,
  type LocalDevnet,
  startDevnet,
  toViemChain,
  usdcLikeAbi,
} from '@tollgate/devnet'
import { type Address, createPublicClient, createWalletClient, type Hash, http, parseUnits } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { getAccountBalance } from '../ledger/get-balances.js'
import { createRails } from '../rails/create-rails.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { createSolanaDevnetPayer } from '../testing/send-solana-transfer.js'
import { createSessionProbe, waitForChainCursor } from '../testing/session-probe.js'
import { registerSessionHandlers } from './register-session-handlers.js'

// Sessions paid for real on the devnet's Base Sepolia (anvil) and Solana (LiteSVM): the real rails
// (registry, HD addresses, FX, screening, the EVM and Solana watchers) report the customer's USDC
// transfer and the session closes.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const BASE = 'eip155:84532'
let devnet: LocalDevnet

beforeAll(async () => {
  devnet = await startDevnet({
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
})
afterAll(async () => {
  await devnet?.stop()
})

describeEachDatabase('payment sessions paid on the devnet', (getDb) => {
  let h: Harness
  let unsubscribe: () => void

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      rails: (base) =>
        createRails(base, {
          networks: devnet.networks,
          pollIntervalMs: 100,
          confirmations: { test: { base: 1, solana: 1 } },
        }),
    })
    unsubscribe = registerSessionHandlers(h.deps)
    await h.deps.rails.start()
    await waitForChainCursor(h, BASE)
  })
  afterAll(async () => {
    await h.deps.rails.stop()
    unsubscribe()
  })

  const payUsdc = async (to: string, amount: bigint) => {
    const wallet = devnet.wallets.find((w) => w.network === BASE && w.role === 'payer')
    const network = devnet.networks[BASE]
    if (!wallet || !network) {
      throw new Error('no Base payer on the devnet')
    }
    const chain = toViemChain(network)
    const client = createWalletClient({
      account: privateKeyToAccount(wallet.privateKey as Hash),
      chain,
      transport: http(),
    })
    const reader = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
    const hash = await client.writeContract({
      address: network.assets.USDC?.address as Address,
      abi: usdcLikeAbi,
      functionName: 'transfer',
      args: [to as Address, amount],
    })
    await reader.waitForTransactionReceipt({ hash })
    return hash
  }
  const probe = () => createSessionProbe(h)
  const open = () => probe().open({ asset: 'USDC', chain: 'base' })
  const waitFor = (session: Json, done: (s: Json) => boolean) => probe().waitFor(session, done)
  const balance = () =>
    getAccountBalance(h.deps, { environment: 'test', code: merchantAccount(h.a.id), currency: 'USDC' })
  const eventTypes = (session: Json) => probe().eventTypes(session)

  test('default: a session paid exactly on Base completes; the balance gains the net amount', async () => {
    const session = await open()
    const before = await balance()
    const txHash = await payUsdc(session.payment.address, parseUnits(session.payment.amount, 6))
    const done = await waitFor(session, (s) => s.state === 'closed')
    expect(done).toMatchObject({
      state: 'closed',
      payment: { status: 'completed', txHash, amountReceived: session.payment.amount },
      transactions: [
        { txHash, status: 'confirmed', amount: session.payment.amount, amlCheck: expect.any(String) },
      ],
    })
    expect((await balance()).available - before.available).toBe(parseUnits(done.settlements.net.amount, 6))
    expect(await eventTypes(session)).toEqual(['payment.completed'])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('behavior: paid partially then fully on Base; partial while open, then completed', async () => {
    const session = await open()
    const total = parseUnits(session.payment.amount, 6)
    await payUsdc(session.payment.address, total / 2n)
    const mid = await waitFor(session, (s) => s.payment.status === 'partial')
    expect(mid).toMatchObject({ state: 'open', payment: { status: 'partial' } })
    await payUsdc(session.payment.address, total - total / 2n)
    const done = await waitFor(session, (s) => s.state === 'closed')
    expect(done.payment.status).toBe('completed')
    expect(done.transactions).toHaveLength(2)
    expect(await eventTypes(session)).toEqual(['payment.partial', 'payment.completed'])
  })

  test('default: a session on Solana USDC paid exactly completes; the balance gains the net amount', async () => {
    const usdc = h.deps.rails.chains.findAsset('test', 'solana', 'USDC')
    if (!usdc) {
      throw new Error('no Solana USDC')
    }
    const session = await probe().open({ asset: 'USDC', chain: 'solana' })
    expect(session.payment).toMatchObject({ address: expect.any(String), status: 'pending' })
    const before = await balance()
    const txHash = await createSolanaDevnetPayer(devnet, usdc)(
      session.payment.address,
      parseUnits(session.payment.amount, 6),
    )
    const done = await waitFor(session, (s) => s.state === 'closed')
    expect(done).toMatchObject({
      state: 'closed',
      payment: { status: 'completed', txHash, amountReceived: session.payment.amount },
      transactions: [{ txHash, status: 'confirmed', amount: session.payment.amount, chain: 'solana' }],
    })
    expect((await balance()).available - before.available).toBe(parseUnits(done.settlements.net.amount, 6))
    expect(await eventTypes(session)).toEqual(['payment.completed'])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })
})
