import type { PaymentPayload } from '@tollgate/core'
import { type Address, createTestClient, getAddress, type Hash, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createEip3009Client } from '../eip3009/client.js'
import { createEip3009Facilitator } from '../eip3009/facilitator.js'
import { createEip3009Server } from '../eip3009/server.js'
import { type EvmHarness, startEvmHarness } from '../testing/devnet-harness.js'

const BASE = 'eip155:84532'
const merchant = '0x00000000000000000000000000000000000000b3' as Address
const sink = '0x00000000000000000000000000000000000000d1' as Address

let harness: EvmHarness

beforeAll(async () => {
  harness = await startEvmHarness([BASE])
})

afterAll(async () => {
  await harness?.stop()
})

const anvil = () =>
  createTestClient({
    mode: 'anvil',
    transport: http(harness.devnet.networks[BASE]?.rpcUrl),
    pollingInterval: 50,
  })

describe('relayer on the devnet', () => {
  test('default: 200 distinct payments settle concurrently through a 4-key pool without nonce errors', async () => {
    const relayer = harness.createRelayer(BASE)
    expect(relayer.getAddresses()).toHaveLength(4)
    const facilitator = createEip3009Facilitator({
      networks: { [BASE]: { client: harness.clientOf(BASE), relayer } },
      assets: harness.assets,
      receiptTimeoutMs: 60_000,
    })
    const payers = Array.from({ length: 20 }, () => privateKeyToAccount(generatePrivateKey()))
    await Promise.all(
      payers.map((p) =>
        harness.devnet.fund({ network: BASE, address: p.address, asset: 'USDC', amount: 1_000_000n }),
      ),
    )
    const requirements = createEip3009Server().createRequirements({
      asset: harness.assets.get(BASE, 'USDC'),
      amount: 1_000n,
      payTo: merchant,
    })
    const payments: PaymentPayload[] = []
    for (const account of payers) {
      const client = createEip3009Client({ account })
      for (let i = 0; i < 10; i++) {
        payments.push({
          x402Version: 2,
          accepted: requirements,
          payload: await client.createPayload(requirements),
        })
      }
    }
    const usdc = getAddress(requirements.asset)
    const before = await harness.balanceOf(BASE, usdc, merchant)
    const counts = await Promise.all(
      relayer.getAddresses().map((address) => harness.clientOf(BASE).getTransactionCount({ address })),
    )
    const results = await Promise.all(
      payments.map((p) => facilitator.settle(p, requirements, { recordBroadcast: async () => undefined })),
    )
    const failures = results.filter((r) => !r.success)
    expect(failures).toEqual([])
    expect(new Set(results.map((r) => r.transaction)).size).toBe(200)
    expect(await harness.balanceOf(BASE, usdc, merchant)).toBe(before + 200_000n)
    const after = await Promise.all(
      relayer.getAddresses().map((address) => harness.clientOf(BASE).getTransactionCount({ address })),
    )
    expect(after.reduce((a, b) => a + b, 0) - counts.reduce((a, b) => a + b, 0)).toBe(200)
    const balances = await relayer.getBalances()
    expect(balances.map((b) => b.address)).toEqual(relayer.getAddresses())
    expect(balances.every((b) => b.balance > 0n)).toBe(true)
    relayer.close()
  }, 180_000)

  test('behavior: a new relayer on the same keys continues after transactions still in the mempool', async () => {
    await harness.evm.setAutomine({ network: BASE, enabled: false })
    try {
      const first = harness.createRelayer(BASE)
      const firstSent = await Promise.all(
        Array.from({ length: 6 }, () => first.send({ to: sink, data: '0x', gas: 30_000n })),
      )
      first.close()
      // "Restart": a fresh instance knows nothing but the node's pending counts.
      const second = harness.createRelayer(BASE)
      const secondSent = await Promise.all(
        Array.from({ length: 6 }, () => second.send({ to: sink, data: '0x', gas: 30_000n })),
      )
      for (const address of second.getAddresses()) {
        const a = firstSent.filter((s) => s.from === address).map((s) => s.nonce)
        const b = secondSent.filter((s) => s.from === address).map((s) => s.nonce)
        expect(b.every((n) => n > Math.max(-1, ...a))).toBe(true)
      }
      await harness.evm.mine({ network: BASE })
      const receipts = await Promise.all(
        [...firstSent, ...secondSent].map((s) => second.waitForReceipt(s.hash, { timeoutMs: 10_000 })),
      )
      expect(receipts.every((r) => r.status === 'success')).toBe(true)
      second.close()
    } finally {
      await harness.evm.setAutomine({ network: BASE, enabled: true })
    }
  })

  test('behavior: a dropped transaction is replaced with the same nonce and higher fees, and the wait follows it', async () => {
    await harness.evm.setAutomine({ network: BASE, enabled: false })
    const relayer = harness.createRelayer(BASE, {
      accounts: harness.relayerAccounts(BASE).slice(0, 1),
      replaceAfterMs: 300,
    })
    try {
      const broadcasts: Hash[] = []
      const sent = await relayer.send(
        { to: sink, data: '0x', gas: 30_000n },
        { onBroadcast: (h) => void broadcasts.push(h) },
      )
      const original = await harness.clientOf(BASE).getTransaction({ hash: sent.hash })
      await anvil().dropTransaction({ hash: sent.hash })
      const wait = relayer.waitForReceipt(sent.hash, { timeoutMs: 20_000 })
      while (broadcasts.length < 2) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      await harness.evm.mine({ network: BASE })
      const receipt = await wait
      expect(receipt.transactionHash).toBe(broadcasts[1])
      expect(receipt.transactionHash).not.toBe(sent.hash)
      const replacement = await harness.clientOf(BASE).getTransaction({ hash: receipt.transactionHash })
      expect(replacement.nonce).toBe(sent.nonce)
      expect(replacement.maxFeePerGas ?? 0n).toBeGreaterThanOrEqual(
        ((original.maxFeePerGas ?? 0n) * 110n) / 100n,
      )
      expect(replacement.maxPriorityFeePerGas ?? 0n).toBeGreaterThanOrEqual(
        ((original.maxPriorityFeePerGas ?? 0n) * 110n) / 100n,
      )
    } finally {
      relayer.close()
      await harness.evm.setAutomine({ network: BASE, enabled: true })
    }
  })
})
