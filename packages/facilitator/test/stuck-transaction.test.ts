import type { createAssetRegistry, FacilitatorRequest } from '@tollgate/core'
import { createEip3009Facilitator, createPermit2Facilitator, createRelayer } from '@tollgate/evm'
import { sql } from 'kysely'
import { type Address, type createTestClient, type Hash, type PublicClient, parseAbiItem } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createFacilitator } from '../src/create-facilitator.js'
import { createPostgresSettlementStore } from '../src/postgres-settlement-store.js'
import { BASE, startBaseSepoliaFixture } from './base-sepolia-fixture.js'
import { closeTestDatabases, testDatabaseKinds } from './test-databases.js'

// A settlement transaction stuck in the pool (anvil's automine is off, so nothing is mined until
// the test mines) outlives the settle's receipt wait: the settle answers `settlement_pending` and
// releases its row. The relayer then re-sends it with the same nonce and higher fees; the
// replacement must be recorded over the stored hash and broadcast, and it is the one that mines.
// The relayer's clock is the test's, so each replacement happens exactly when the test says.

const REPLACE_AFTER_MS = 1_000
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

let fixture: Awaited<ReturnType<typeof startBaseSepoliaFixture>>
let client: PublicClient
let anvil: ReturnType<typeof createTestClient>
let assets: ReturnType<typeof createAssetRegistry>

beforeAll(async () => {
  fixture = await startBaseSepoliaFixture()
  ;({ client, anvil, assets } = fixture)
}, 120_000)

afterAll(async () => {
  await fixture?.stop()
  await closeTestDatabases()
})

const keys = (role: 'payer' | 'relayer') => fixture.keys(role)

function buildRequest(scheme: 'eip3009' | 'permit2', payTo: Address): Promise<FacilitatorRequest> {
  return fixture.buildRequest(scheme, payTo)
}

/** Polls `read` until `done` holds (the relayer's timer runs every third of REPLACE_AFTER_MS). */
async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read()
    if (done(value)) {
      return value
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error('condition not reached')
}

for (const kind of testDatabaseKinds) {
  describe(`a stuck settlement transaction replaced by the relayer, on ${kind.name}`, () => {
    const cleanups: Array<() => Promise<void> | void> = []
    afterEach(async () => {
      await anvil.setAutomine(true)
      for (const cleanup of cleanups.splice(0).reverse()) {
        await cleanup()
      }
    })

    /** One facilitator process whose relayer replaces transactions only when `advance()` is called. */
    async function start(scheme: 'eip3009' | 'permit2', receiptTimeoutMs: number) {
      const database = await kind.open()
      cleanups.push(() => database.cleanup())
      let relayerClock = Date.now()
      const relayer = createRelayer({
        network: BASE,
        client,
        accounts: keys('relayer'),
        pollingIntervalMs: 50,
        replaceAfterMs: REPLACE_AFTER_MS,
        now: () => relayerClock,
      })
      const options = {
        networks: { [BASE]: { client, relayer } },
        assets,
        receiptTimeoutMs,
      }
      const facilitator = createFacilitator({
        schemes: [createEip3009Facilitator(options), createPermit2Facilitator(options)],
        store: await createPostgresSettlementStore({ db: database.db, schema: database.schema }),
      })
      cleanups.push(() => {
        facilitator.close()
        relayer.close()
      })
      const payTo = privateKeyToAccount(generatePrivateKey()).address
      const request = await buildRequest(scheme, payTo)
      /** The settlement row as the database holds it. */
      const row = async () => {
        const { rows } = await sql<{ state: string; transaction: string | null; owner: string | null }>`
          select state, transaction, owner from ${sql.table(`${database.schema}.x402_settlements`)}`.execute(
          database.db,
        )
        return rows[0]
      }
      /** Moves the relayer's clock past the replacement delay; waits for the swap and its broadcast. */
      const replace = async () => {
        const before = (await row())?.transaction
        relayerClock += REPLACE_AFTER_MS
        const after = await waitUntil(row, (current) => current?.transaction !== before)
        // Recorded first, then sent.
        await waitUntil(
          () => client.getTransaction({ hash: after?.transaction as Hash }).catch(() => undefined),
          Boolean,
        )
        return after
      }
      const transfers = async () =>
        client.getLogs({
          address: assets.get(BASE, 'USDC').address as Address,
          event: transferEvent,
          args: { to: payTo },
          fromBlock: 0n,
        })
      return { facilitator, request, row, replace, transfers }
    }

    /** Mines the next block and checks `hash` is the payment's one transfer and replaced `stuck`. */
    async function mineAndCheck(hash: Hash, stuck: { nonce: number; from: Address }) {
      const replacement = await client.getTransaction({ hash })
      expect(replacement).toMatchObject({ blockNumber: null, nonce: stuck.nonce, from: stuck.from })
      await anvil.mine({ blocks: 1 })
      expect(await client.getTransactionReceipt({ hash })).toMatchObject({ status: 'success' })
    }

    test('default: a replacement after the settle answered pending is recorded and mined', async () => {
      const { facilitator, request, row, replace, transfers } = await start('eip3009', 500)
      await anvil.setAutomine(false)
      const answer = await facilitator.settle(request)
      expect(answer).toMatchObject({ success: false, errorReason: 'settlement_pending' })
      const stuck = answer.transaction as Hash
      const sent = await client.getTransaction({ hash: stuck })
      expect(await row()).toEqual({ state: 'pending', transaction: stuck, owner: null })

      const replaced = await replace()
      expect(replaced).toMatchObject({ state: 'pending', owner: null })
      const replacement = replaced?.transaction as Hash
      expect(replacement).not.toBe(stuck)
      // Replaced in the node's pool: the stuck transaction can no longer be mined.
      await expect(client.getTransaction({ hash: stuck })).rejects.toThrow(/could not be found/)
      await mineAndCheck(replacement, sent)

      expect((await transfers()).map((t) => t.transactionHash)).toEqual([replacement])
      expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
      expect(await facilitator.settle(request)).toMatchObject({ success: true, transaction: replacement })
      expect(await row()).toEqual({ state: 'settled', transaction: replacement, owner: null })
    })

    test('behavior: replaced during the wait and again after it, the newest hash is stored and mined', async () => {
      // Long enough a wait to replace the transaction while the settle still holds the row.
      const { facilitator, request, row, replace, transfers } = await start('permit2', 3_000)
      await anvil.setAutomine(false)
      const settling = facilitator.settle(request)
      const broadcast = await waitUntil(row, (current) => Boolean(current?.transaction))
      expect(broadcast).toMatchObject({ state: 'broadcast' })
      const stuck = broadcast?.transaction as Hash
      // Recorded first, then sent: under load the node may not have it yet.
      const sent = await waitUntil(
        () => client.getTransaction({ hash: stuck }).catch(() => undefined),
        Boolean,
      )
      if (!sent) {
        throw new Error('the broadcast never reached the node')
      }

      // The settle still holds the row: the replacement is its own owner-fenced write.
      const during = await replace()
      expect(during).toMatchObject({ state: 'broadcast', owner: broadcast?.owner })
      const answer = await settling
      expect(answer).toMatchObject({
        success: false,
        errorReason: 'settlement_pending',
        transaction: during?.transaction,
      })
      expect(await row()).toEqual({ state: 'pending', transaction: during?.transaction, owner: null })

      const after = await replace()
      const replacement = after?.transaction as Hash
      expect(after).toEqual({ state: 'pending', transaction: replacement, owner: null })
      expect(new Set([stuck, during?.transaction, replacement]).size).toBe(3)
      await mineAndCheck(replacement, sent)

      expect((await transfers()).map((t) => t.transactionHash)).toEqual([replacement])
      expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
      expect(await row()).toEqual({ state: 'settled', transaction: replacement, owner: null })
    })
  })
}
