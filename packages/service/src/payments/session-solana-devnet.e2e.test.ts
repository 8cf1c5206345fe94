import { type LocalDevnet, SOLANA_DEVNET_NETWORK, startDevnet } from '@tollgate/devnet'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { getAccountBalance } from '../ledger/get-balances.js'
import { createJsonRpc } from '../rails/chains/json-rpc.js'
import { createRails } from '../rails/create-rails.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { sendSplTransfer } from '../testing/send-solana-transfer.js'
import { createSessionProbe } from '../testing/session-probe.js'
import { registerSessionHandlers } from './register-session-handlers.js'

// A session on Solana USDC paid for real on the devnet's LiteSVM: the customer's SPL transfer is
// seen by the rails' Solana watcher, the session completes, the balance gains the net amount and
// `payment.completed` is emitted once.

let devnet: LocalDevnet

beforeAll(async () => {
  devnet = await startDevnet({ evm: false })
})
afterAll(async () => {
  await devnet?.stop()
})

describeEachDatabase('payment sessions paid on the Solana devnet', (getDb) => {
  let h: Harness
  let unsubscribe: () => void

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      rails: (base) =>
        createRails(base, {
          networks: devnet.networks,
          pollIntervalMs: 100,
          confirmations: { test: { solana: 1 } },
        }),
    })
    unsubscribe = registerSessionHandlers(h.deps)
    await h.deps.rails.start()
  })
  afterAll(async () => {
    await h.deps.rails.stop()
    unsubscribe()
  })

  const payUsdc = async (owner: string, amount: bigint) => {
    const network = devnet.networks[SOLANA_DEVNET_NETWORK]
    const wallet = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
    const usdc = h.deps.rails.chains.findAsset('test', 'solana', 'USDC')
    if (!network || !wallet || !usdc) {
      throw new Error('no Solana payer or USDC on the devnet')
    }
    // The session address's USDC account must exist before a TransferChecked can credit it (a
    // customer's wallet creates it idempotently in the same transaction).
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: owner, asset: 'USDC', amount: 0n })
    const rpc = createJsonRpc(network.rpcUrl, { network: SOLANA_DEVNET_NETWORK })
    return sendSplTransfer(rpc, {
      secret: wallet.privateKey,
      payer: wallet.address,
      owner,
      asset: usdc,
      amount,
    })
  }

  test('default: a session on Solana USDC paid exactly completes; the balance gains the net amount', async () => {
    const probe = createSessionProbe(h)
    const session = await probe.open({ asset: 'USDC', chain: 'solana' })
    expect(session.payment).toMatchObject({ address: expect.any(String), status: 'pending' })
    const balance = () =>
      getAccountBalance(h.deps, { environment: 'test', code: merchantAccount(h.a.id), currency: 'USDC' })
    const before = await balance()
    const amount = probe.toUnits(session.payment.amount, 6)
    const txHash = await payUsdc(session.payment.address, amount)
    const done = await probe.waitFor(session, (s) => s.state === 'closed')
    expect(done).toMatchObject({
      state: 'closed',
      payment: { status: 'completed', txHash, amountReceived: session.payment.amount },
      transactions: [{ txHash, status: 'confirmed', amount: session.payment.amount, chain: 'solana' }],
    })
    expect((await balance()).available - before.available).toBe(probe.toUnits(done.settlements.net.amount, 6))
    expect(await probe.eventTypes(session)).toEqual(['payment.completed'])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })
})
