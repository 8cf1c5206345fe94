import { generateKeyPairSigner } from '@solana/kit'
import {
  DEFAULT_EVM_NETWORKS,
  DEVNET_USDT_MINT,
  type LocalDevnet,
  SOLANA_DEVNET_NETWORK,
  startDevnet,
  usdcLikeAbi,
} from '@tollgate/devnet'
import { type Address, createPublicClient, http, parseUnits } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { subscribeDeposits } from '../../deposits/subscribe-deposits.js'
import { getLedgerTransaction } from '../../ledger/get-ledger-transaction.js'
import { registerSessionHandlers } from '../../payments/register-session-handlers.js'
import { createDevnetPayer } from '../../testing/devnet-payer.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { setTestFxRates } from '../../testing/fx-fixtures.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import { createSolanaDevnetPayer } from '../../testing/send-solana-transfer.js'
import { createSessionProbe, waitForChainCursor } from '../../testing/session-probe.js'
import { readSolanaTokenBalance } from '../../testing/solana-treasury.js'
import { createRails } from '../create-rails.js'
import type { ChainAsset, CryptoSend } from '../types.js'
import { runSweepJob } from './run-sweep-job.js'

// The chains the devnet gained: Celo Sepolia (one of the three new anvils, standing for Ethereum and
// Polygon too: same fixtures, same code paths) and USDT on Solana. Each is paid for real, seen below
// its confirmation count (Celo 2, Solana 3 here), confirmed once blocks follow, then swept to the
// treasury.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const CELO = 'eip155:11142220'
let devnet: LocalDevnet

beforeAll(async () => {
  devnet = await startDevnet({
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === CELO) },
    solana: { payers: 1, relayers: 0 },
  })
})
afterAll(async () => {
  await devnet?.stop()
})

describeEachDatabase('Celo and Solana USDT on the devnet', (getDb) => {
  let h: Harness
  const unsubscribes: (() => void)[] = []

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      rails: (base) =>
        createRails(base, {
          networks: devnet.networks,
          pollIntervalMs: 100,
          confirmations: { test: { celo: 2, solana: 3 } },
        }),
    })
    await setTestFxRates(h.deps.rails)
    unsubscribes.push(registerSessionHandlers(h.deps), subscribeDeposits(h.deps))
    const { rails } = h.deps
    const celo = rails.crypto.getTreasury('test', 'celo')
    const solana = rails.crypto.getTreasury('test', 'solana')
    if (!celo || !solana) {
      throw new Error('no treasury on Celo or Solana')
    }
    for (const address of [celo.address, ...celo.feePayers]) {
      await devnet.fund({ network: CELO, address, amount: 10n ** 20n })
    }
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: solana.address, amount: 10n ** 12n })
    await devnet.fund({
      network: SOLANA_DEVNET_NETWORK,
      address: solana.address,
      asset: 'USDT',
      amount: 10n ** 12n,
    })
    await rails.start()
    await waitForChainCursor(h, CELO)
  })
  afterAll(async () => {
    for (const unsubscribe of unsubscribes) {
      unsubscribe()
    }
    await h?.deps.rails.stop()
  })

  const transferOf = async (txHash: string) => {
    const row = await h.deps.db
      .selectFrom('incoming_transfers')
      .select(['id', 'status', 'asset', 'amount'])
      .where('tx_hash', '=', txHash)
      .executeTakeFirstOrThrow()
    // bigint columns come back as strings from one driver and bigints from the other.
    return { ...row, amount: BigInt(row.amount) }
  }
  const waitSettled = async (key: string): Promise<CryptoSend> => {
    for (let i = 0; i < 400; i++) {
      const send = await h.deps.rails.crypto.get(key, 'test')
      if (send && send.status !== 'pending') {
        return send
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`send ${key} not settled`)
  }

  test('default: a Celo USDC session is seen, confirmed after one more block, closes, and is swept to the treasury', async () => {
    expect(h.deps.rails.chains.get('test', 'celo')).toMatchObject({ network: CELO, hasNode: true })
    const probe = createSessionProbe(h)
    const session = await probe.open({ asset: 'USDC', chain: 'celo' })
    const amount = parseUnits(session.payment.amount, 6)
    const txHash = await createDevnetPayer(devnet, CELO).payToken('USDC', session.payment.address, amount)
    const seen = await probe.waitFor(session, (s: Json) => s.transactions?.length === 1)
    expect(seen).toMatchObject({ state: 'open', transactions: [{ txHash, status: 'pending' }] })
    await devnet.evm?.mine({ network: CELO })
    const done = await probe.waitFor(session, (s: Json) => s.state === 'closed')
    expect(done).toMatchObject({
      state: 'closed',
      payment: { status: 'completed', txHash },
      transactions: [{ txHash, status: 'confirmed' }],
    })

    const transfer = await transferOf(txHash)
    const treasury = h.deps.rails.crypto.getTreasury('test', 'celo')?.address as Address
    const usdc = {
      address: devnet.networks[CELO]?.assets.USDC?.address as Address,
      abi: usdcLikeAbi,
    } as const
    const client = createPublicClient({ transport: http(devnet.networks[CELO]?.rpcUrl) })
    const before = await client.readContract({ ...usdc, functionName: 'balanceOf', args: [treasury] })
    await runSweepJob(h.deps, { transferId: transfer.id })
    await runSweepJob(h.deps, { transferId: transfer.id })
    const sweep = await waitSettled(`sweep:${transfer.id}`)
    expect(sweep).toMatchObject({ status: 'confirmed', to: treasury, amount })
    expect(await client.readContract({ ...usdc, functionName: 'balanceOf', args: [treasury] })).toBe(
      before + amount,
    )
  })

  test('default: USDT paid by SPL transfer to a Solana deposit address is seen, confirmed, credited, swept and sendable', async () => {
    const usdt = h.deps.rails.chains.findAsset('test', 'solana', 'USDT') as ChainAsset
    expect(usdt).toMatchObject({
      kind: 'spl',
      address: DEVNET_USDT_MINT,
      decimals: 6,
      ledgerCurrency: 'USDT',
    })
    const json = async (res: Response) => ((await res.json()) as Json).data
    const customer = await json(
      await h.request('/api/v1/customers', { method: 'POST', json: { email: 'usdt@example.com' } }),
    )
    const account = await json(
      await h.request('/api/v1/deposits/accounts', {
        method: 'POST',
        json: { customerId: customer.id, settlementCurrency: 'default' },
      }),
    )
    const identity = await json(
      await h.request(`/api/v1/deposits/accounts/${account.id}/identities`, {
        method: 'POST',
        json: { type: 'static_deposit_address', chain: 'solana' },
      }),
    )
    const address = identity.staticDepositAddresses[0]?.address as string
    const txHash = await createSolanaDevnetPayer(devnet, usdt)(address, 10_000_000n)
    const waitForDeposit = async (status: string): Promise<Json> => {
      for (let i = 0; i < 200; i++) {
        const [deposit] = await json(await h.request(`/api/v1/deposits?txHash=${txHash}`))
        if (deposit?.status === status) {
          return deposit
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      throw new Error(`the USDT deposit did not become ${status}`)
    }
    expect(await waitForDeposit('pending')).toMatchObject({ currency: 'USDT', amount: '10.000000' })
    expect(await transferOf(txHash)).toMatchObject({ status: 'seen', asset: 'USDT', amount: 10_000_000n })
    devnet.solana?.advanceBlocks(3)
    expect(await waitForDeposit('completed')).toMatchObject({ currency: 'USDT', amount: '10.000000' })

    const transfer = await transferOf(txHash)
    expect(transfer.status).toBe('confirmed')
    const treasury = h.deps.rails.crypto.getTreasury('test', 'solana')?.address as string
    const before = await readSolanaTokenBalance(devnet, treasury, usdt)
    await runSweepJob(h.deps, { transferId: transfer.id })
    await runSweepJob(h.deps, { transferId: transfer.id })
    const sweep = await waitSettled(`sweep:${transfer.id}`)
    expect(sweep).toMatchObject({ status: 'confirmed', to: treasury, asset: 'USDT', amount: 10_000_000n })
    expect(await readSolanaTokenBalance(devnet, address, usdt)).toBe(0n)
    expect(await readSolanaTokenBalance(devnet, treasury, usdt)).toBe(before + 10_000_000n)
    const ledger = await getLedgerTransaction(h.deps, {
      environment: 'test',
      idempotencyKey: `sweep:${sweep.id}`,
    })
    expect(ledger?.transfers.map((t) => [t.currency, t.amount])).toEqual([['USDT', 10_000_000n]])

    // And out again: the treasury sends USDT to a wallet without a token account.
    const to = (await generateKeyPairSigner()).address
    await h.deps.rails.crypto.send({
      environment: 'test',
      chain: 'solana',
      asset: 'USDT',
      to,
      amount: 1_250_000n,
      idempotencyKey: `usdt_out_${transfer.id}`,
    })
    expect((await waitSettled(`usdt_out_${transfer.id}`)).status).toBe('confirmed')
    expect(await readSolanaTokenBalance(devnet, to, usdt)).toBe(1_250_000n)
  })
})
