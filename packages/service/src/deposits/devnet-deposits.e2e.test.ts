import {
  DEFAULT_EVM_NETWORKS,
  type LocalDevnet,
  startDevnet,
  toViemChain,
  usdcLikeAbi,
} from '@tollgate/devnet'
import { type Address, createPublicClient, createWalletClient, type Hash, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { getAccountBalance } from '../ledger/get-balances.js'
import { createRails } from '../rails/create-rails.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { setTestFxRates } from '../testing/fx-fixtures.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { createSolanaDevnetPayer } from '../testing/send-solana-transfer.js'
import { waitForChainCursor } from '../testing/session-probe.js'
import { subscribeDeposits } from './subscribe-deposits.js'

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

type Deposit = {
  status: string
  currency: string
  amount: string
  fee: string
  netAmount: string
  failureReason?: string | null
}

// USDC sent on the devnet's Base (anvil) and Solana (LiteSVM) to a customer's static deposit address:
// the rails' watchers see it, the deposit subscriber credits it at the confirmation count (3 here),
// per settlement rule; a deposit reorged out before its count is never credited.
describeEachDatabase('deposits on the devnet', (getDb) => {
  let h: Harness
  let unsubscribe: () => void
  beforeAll(async () => {
    h = await createHarness(getDb(), {
      rails: (base) =>
        createRails(base, {
          networks: devnet.networks,
          confirmations: { test: { base: 3, solana: 3 } },
          pollIntervalMs: 100,
        }),
    })
    await setTestFxRates(h.deps.rails)
    unsubscribe = subscribeDeposits(h.deps)
    await h.deps.rails.start()
    await waitForChainCursor(h, BASE)
  })
  afterAll(async () => {
    unsubscribe?.()
    await h?.deps.rails.stop()
  })
  const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data
  const network = () => {
    const net = devnet.networks[BASE]
    const wallet = devnet.wallets.find((w) => w.network === BASE && w.role === 'payer')
    if (!net || !wallet) {
      throw new Error('no base devnet')
    }
    return { net, wallet }
  }
  const payUsdc = async (to: string, amount: bigint) => {
    const { net, wallet } = network()
    const chain = toViemChain(net)
    const client = createWalletClient({
      account: privateKeyToAccount(wallet.privateKey as Hash),
      chain,
      transport: http(),
    })
    const reader = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
    const hash = await client.writeContract({
      address: net.assets.USDC?.address as Address,
      abi: usdcLikeAbi,
      functionName: 'transfer',
      args: [to as Address, amount],
    })
    await reader.waitForTransactionReceipt({ hash })
    return hash
  }
  const anvil = async (method: string, params: unknown[] = []) => {
    const res = await fetch(network().net.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await res.json()) as { result: unknown }).result
  }
  const mine = (blocks: number) => anvil('anvil_mine', [`0x${blocks.toString(16)}`])
  const waitForDeposit = async (txHash: string, status: string): Promise<Deposit> => {
    for (let i = 0; i < 200; i++) {
      const [deposit] = await json<Deposit[]>(await h.request(`/api/v1/deposits?txHash=${txHash}`))
      if (deposit?.status === status) {
        return deposit
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`deposit of ${txHash} did not become ${status}`)
  }
  const staticAddress = async (email: string, settlementCurrency: string, chain = 'base') => {
    const customer = await json<{ id: string }>(
      await h.request('/api/v1/customers', { method: 'POST', json: { email } }),
    )
    const account = await json<{ id: string }>(
      await h.request('/api/v1/deposits/accounts', {
        method: 'POST',
        json: { customerId: customer.id, settlementCurrency },
      }),
    )
    const withAddress = await json<{ staticDepositAddresses: { address: string }[] }>(
      await h.request(`/api/v1/deposits/accounts/${account.id}/identities`, {
        method: 'POST',
        json: { type: 'static_deposit_address', chain },
      }),
    )
    return withAddress.staticDepositAddresses[0]?.address ?? ''
  }

  // Each chain: how to pay USDC to an address, and how to add the 3 confirmations.
  const chains = {
    base: { pay: payUsdc, confirm: () => mine(3) },
    solana: {
      pay: (owner: string, amount: bigint) => {
        const usdc = h.deps.rails.chains.findAsset('test', 'solana', 'USDC')
        if (!usdc) {
          throw new Error('no Solana USDC')
        }
        return createSolanaDevnetPayer(devnet, usdc)(owner, amount)
      },
      confirm: async () => devnet.solana?.advanceBlocks(3),
    },
  }

  test.each(['base', 'solana'] as const)(
    '%s, default rule: 10 USDC becomes a completed USDC deposit of 9.95 net',
    async (chain) => {
      const address = await staticAddress(`devnet-default-${chain}@example.com`, 'default', chain)
      const txHash = await chains[chain].pay(address, 10_000_000n)
      expect(await waitForDeposit(txHash, 'pending')).toMatchObject({
        currency: 'USDC',
        netAmount: '9.950000',
      })
      await chains[chain].confirm()
      expect(await waitForDeposit(txHash, 'completed')).toMatchObject({
        currency: 'USDC',
        amount: '10.000000',
        fee: '0.050000',
        netAmount: '9.950000',
      })
    },
  )

  test.each(['base', 'solana'] as const)(
    '%s, chosen currency NGN: 10 USDC becomes a completed NGN deposit of 14,925 net',
    async (chain) => {
      const address = await staticAddress(`devnet-ngn-${chain}@example.com`, 'NGN', chain)
      const txHash = await chains[chain].pay(address, 10_000_000n)
      await waitForDeposit(txHash, 'pending')
      await chains[chain].confirm()
      expect(await waitForDeposit(txHash, 'completed')).toMatchObject({
        currency: 'NGN',
        amount: '15000.00',
        fee: '75.00',
        netAmount: '14925.00',
      })
    },
  )

  test('behavior: a deposit reorged out before its confirmation count fails and is never credited', async () => {
    const address = await staticAddress('devnet-reorg@example.com', 'default')
    const balance = () =>
      getAccountBalance(h.deps, { environment: 'test', code: merchantAccount(h.a.id), currency: 'USDC' })
    const before = await balance()
    const snapshot = await anvil('evm_snapshot')
    const txHash = await payUsdc(address, 7_000_000n)
    await waitForDeposit(txHash, 'pending')
    expect((await balance()).pending - before.pending).toBe(6_965_000n)
    // The block with the deposit is replaced by a longer chain without it.
    expect(await anvil('evm_revert', [snapshot])).toBe(true)
    await mine(3)
    expect(await waitForDeposit(txHash, 'failed')).toMatchObject({
      status: 'failed',
      failureReason: 'reverted',
      netAmount: '6.965000',
    })
    expect(await balance()).toEqual(before)
    const rows = await json<{ status: string }[]>(
      await h.request(`/api/v1/balance/transactions?source=deposit&txHash=${txHash}`),
    )
    expect(rows.map((r) => r.status)).toEqual(['voided'])
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })
})
