import { generateKeyPairSigner } from '@solana/kit'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet, usdcLikeAbi } from '@tollgate/devnet'
import { type Address, createPublicClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { getBalances } from '../ledger/get-balances.js'
import { setPayoutDailyLimit } from '../merchants/verify-merchant.js'
import { createRails } from '../rails/create-rails.js'
import type { ChainAsset, Rails } from '../rails/types.js'
import { fundBalance } from '../sandbox/fund-sandbox-merchant.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { fundSolanaTreasury, readSolanaTokenBalance } from '../testing/solana-treasury.js'
import type { Payout } from './payout.js'

// Crypto payouts through the sandbox rails on the devnet's Base (anvil) and Solana (LiteSVM): the
// send is a real transaction, the recipient's balance is read on-chain.

const BASE = 'eip155:84532'
let devnet: LocalDevnet

beforeAll(async () => {
  devnet = await startDevnet({ evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) } })
})
afterAll(async () => {
  await devnet?.stop()
})

describeEachDatabase('payouts on the devnet', (getDb, engine) => {
  let h: Harness
  let rails: Rails
  const usdcBalanceOf = async (holder: string) => {
    const client = createPublicClient({ transport: http(devnet.networks[BASE]?.rpcUrl) })
    return client.readContract({
      address: (devnet.networks[BASE]?.assets.USDC?.address ?? '') as Address,
      abi: usdcLikeAbi,
      functionName: 'balanceOf',
      args: [holder as Address],
    })
  }
  const waitFinal = async (id: string): Promise<Payout> => {
    for (let i = 0; i < 600; i++) {
      const res = await h.request(`/api/v1/payouts/${id}`)
      const payout = ((await res.json()) as { data: Payout }).data
      if (payout.status === 'success' || payout.status === 'failed') {
        return payout
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`payout ${id} did not finish`)
  }
  const solanaUsdcOf = (owner: string) =>
    readSolanaTokenBalance(devnet, owner, rails.chains.findAsset('test', 'solana', 'USDC') as ChainAsset)
  const payTo = async (address: string, amount: string, chain = 'base') => {
    const saved = await h.request('/api/v1/recipients', {
      method: 'POST',
      json: { type: 'crypto_address', details: { chain, address } },
    })
    const recipientId = ((await saved.json()) as { data: { id: string } }).data.id
    const res = await h.request('/api/v1/payouts', {
      method: 'POST',
      json: { currency: 'USDC', recipientId, amount },
    })
    const body = (await res.json()) as { data: Payout; error?: { code: string } }
    // A send the chain refuses at once is the spec's 500 "payout processing failed", the payout in data.
    expect(res.status === 201 || (res.status === 500 && body.error?.code === 'payout_failed')).toBe(true)
    return body.data
  }
  const usdcBalance = async () =>
    (await getBalances(h.deps, { merchantId: h.a.id, environment: 'test' })).find(
      (b) => b.currency === 'USDC',
    )

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      rails: (base) => {
        rails = createRails(base, {
          masterSeed: `${engine === 'pglite' ? 'c' : 'd'}7`.repeat(64),
          networks: devnet.networks,
          pollIntervalMs: 50,
        })
        return rails
      },
    })
    const treasury = rails.crypto.getTreasury('test', 'base')
    if (!treasury) {
      throw new Error('no treasury on base')
    }
    await devnet.fund({ network: BASE, address: treasury.address, amount: 10n ** 20n })
    await devnet.fund({ network: BASE, address: treasury.address, asset: 'USDC', amount: 1_000n * 10n ** 6n })
    for (const payer of treasury.feePayers) {
      await devnet.fund({ network: BASE, address: payer, amount: 10n ** 20n })
    }
    await fundSolanaTreasury(devnet, rails, 1_000n * 10n ** 6n)
    await rails.start()
    await fundBalance(h.deps, { merchantId: h.a.id, currency: 'USDC', amount: '5000' })
    await setPayoutDailyLimit(h.deps, { merchantId: h.a.id, limitUsd: '1000000' })
  })
  afterAll(async () => {
    await rails?.stop()
  })

  test('default: a USDC payout on base arrives on-chain and turns success with its tx hash', async () => {
    const to = privateKeyToAddress(generatePrivateKey())
    const before = await usdcBalance()
    const accepted = await payTo(to, '12.5')
    expect(accepted.method).toBe('crypto')
    expect(['processing', 'success']).toContain(accepted.status)
    // The send may confirm before POST answers; a payout still processing has no completion time.
    if (accepted.status === 'processing') {
      expect(accepted.completedAt).toBeNull()
    }
    const final = await waitFinal(accepted.id)
    expect(final).toMatchObject({ status: 'success', failureReason: null })
    expect(final.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await usdcBalanceOf(to)).toBe(12_500_000n)
    expect((await usdcBalance())?.available).toBe((before?.available ?? 0n) - 12_600_000n)
  })

  test('behavior: 100 concurrent payouts through the fee-payer pool all succeed, each paid once on-chain with a nonce of its own', async () => {
    const client = createPublicClient({ transport: http(devnet.networks[BASE]?.rpcUrl) })
    const feePayers = rails.crypto.getTreasury('test', 'base')?.feePayers ?? []
    const noncesOf = () =>
      Promise.all(
        feePayers.map((address) =>
          client.getTransactionCount({ address: address as Address, blockTag: 'latest' }),
        ),
      )
    const to = privateKeyToAddress(generatePrivateKey())
    const saved = await h.request('/api/v1/recipients', {
      method: 'POST',
      json: { type: 'crypto_address', details: { chain: 'base', address: to } },
    })
    const recipientId = ((await saved.json()) as { data: { id: string } }).data.id
    const before = { balance: await usdcBalance(), nonces: await noncesOf() }
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        h.request('/api/v1/payouts', {
          method: 'POST',
          json: { currency: 'USDC', recipientId, amount: '1' },
        }),
      ),
    )
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 201))
    const ids = await Promise.all(
      answers.map(async (res) => ((await res.json()) as { data: Payout }).data.id),
    )
    let rows: { id: string; status: string; tx_hash: string | null }[] = []
    for (let i = 0; i < 1200; i++) {
      rows = await h.deps.db
        .selectFrom('payouts')
        .select(['id', 'status', 'tx_hash'])
        .where('id', 'in', ids)
        .execute()
      if (rows.every((r) => r.status === 'success' || r.status === 'failed')) {
        break
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(rows.filter((r) => r.status !== 'success')).toEqual([])
    // Counted on-chain: 100 distinct transactions, each from a pool key with a nonce no other used,
    // the pool's nonces moved by exactly 100, and the recipient got 100 USDC.
    const hashes = new Set(rows.map((r) => r.tx_hash))
    expect(hashes.size).toBe(100)
    const transactions = await Promise.all(
      [...hashes].map((hash) => client.getTransaction({ hash: hash as `0x${string}` })),
    )
    const pool = feePayers.map((a) => a.toLowerCase())
    expect(transactions.every((t) => pool.includes(t.from.toLowerCase()))).toBe(true)
    expect(new Set(transactions.map((t) => `${t.from}:${t.nonce}`)).size).toBe(100)
    const nonces = await noncesOf()
    expect(nonces.reduce((sum, n, i) => sum + n - (before.nonces[i] ?? 0), 0)).toBe(100)
    expect(await usdcBalanceOf(to)).toBe(100_000_000n)
    // One send per payout, and the ledger posted amount + fee of each.
    const sends = await h.deps.db
      .selectFrom('crypto_sends')
      .select('idempotency_key')
      .where('idempotency_key', 'in', ids)
      .execute()
    expect(sends).toHaveLength(100)
    expect((await usdcBalance())?.available).toBe((before.balance?.available ?? 0n) - 110_000_000n)
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('behavior: a send the chain refuses (more than the treasury holds) fails the payout and voids the reserve', async () => {
    const to = privateKeyToAddress(generatePrivateKey())
    const before = await usdcBalance()
    const accepted = await payTo(to, '4000')
    const final = await waitFinal(accepted.id)
    expect(final.status).toBe('failed')
    expect(final.failureReason).toBeTruthy()
    expect(await usdcBalanceOf(to)).toBe(0n)
    expect(await usdcBalance()).toEqual(before)
  })

  test('default: a USDC payout on solana arrives at a wallet without a token account and turns success', async () => {
    const to = (await generateKeyPairSigner()).address
    const before = await usdcBalance()
    const accepted = await payTo(to, '3.25', 'solana')
    expect(accepted.method).toBe('crypto')
    const final = await waitFinal(accepted.id)
    expect(final).toMatchObject({ status: 'success', failureReason: null })
    expect(final.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    expect(await solanaUsdcOf(to)).toBe(3_250_000n)
    expect((await usdcBalance())?.available).toBe((before?.available ?? 0n) - 3_350_000n)
  })

  test('behavior: a solana payout the chain refuses (more than the treasury holds) fails and voids the reserve', async () => {
    const to = (await generateKeyPairSigner()).address
    const before = await usdcBalance()
    const accepted = await payTo(to, '4000', 'solana')
    const final = await waitFinal(accepted.id)
    expect(final.status).toBe('failed')
    expect(final.failureReason).toBeTruthy()
    expect(await solanaUsdcOf(to)).toBe(0n)
    expect(await usdcBalance()).toEqual(before)
  })
})
