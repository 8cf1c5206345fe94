import type { createAssetRegistry, FacilitatorRequest } from '@tollgate/core'
import {
  createEip3009Facilitator,
  createPermit2Facilitator,
  createRelayer,
  eip3009Abi,
  type Relayer,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  x402ExactPermit2ProxyAbi,
} from '@tollgate/evm'
import { sql } from 'kysely'
import {
  type Address,
  type createTestClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  type Hash,
  type Hex,
  http,
  type PublicClient,
  parseAbiItem,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createFacilitator } from '../src/create-facilitator.js'
import { createPostgresSettlementStore } from '../src/postgres-settlement-store.js'
import type { SettlementStore } from '../src/settlement-store.js'
import { BASE, startBaseSepoliaFixture } from './base-sepolia-fixture.js'
import { closeTestDatabases, type TestDatabase, testDatabaseKinds } from './test-databases.js'

// A settlement whose transaction was broadcast, recorded, and then dropped from the mempool before
// it was mined: after a restart the reconciler must settle it exactly once (or fail it for good
// when it expired). Automine is off while the first facilitator sends, so its transaction waits in
// anvil's pool until the test drops it.

const RECEIPT_TIMEOUT_MS = 1_000
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

let fixture: Awaited<ReturnType<typeof startBaseSepoliaFixture>>
let client: PublicClient
let anvil: ReturnType<typeof createTestClient>
let assets: ReturnType<typeof createAssetRegistry>
// Seconds anvil's clock was moved ahead (evm_increaseTime); everyone's clock follows the chain's.
let warpSeconds = 0
const now = () => Date.now() + warpSeconds * 1000

beforeAll(async () => {
  fixture = await startBaseSepoliaFixture()
  ;({ client, anvil, assets } = fixture)
}, 120_000)

afterAll(async () => {
  await fixture?.stop()
  await closeTestDatabases()
})

const keys = (role: 'payer' | 'relayer') => fixture.keys(role)

/**
 * One facilitator process: its own relayer and schemes over the shared settlement store. Without
 * `withoutKey` its relayer could sign a byte-identical copy of a dropped transaction (same key,
 * nonce and fees): fine on chain, but then the re-sent hash equals the stored one.
 */
function startProcess(store: SettlementStore, withoutKey?: Address) {
  const relayer: Relayer = createRelayer({
    network: BASE,
    client,
    accounts: keys('relayer').filter(
      (account) => account.address.toLowerCase() !== withoutKey?.toLowerCase(),
    ),
    pollingIntervalMs: 50,
    now,
  })
  const options = {
    networks: { [BASE]: { client, relayer } },
    assets,
    receiptTimeoutMs: RECEIPT_TIMEOUT_MS,
    now,
  }
  const facilitator = createFacilitator({
    schemes: [createEip3009Facilitator(options), createPermit2Facilitator(options)],
    store,
    now,
  })
  return {
    facilitator,
    relayer,
    stop() {
      facilitator.close()
      relayer.close()
    },
  }
}

function buildRequest(
  scheme: 'eip3009' | 'permit2',
  payTo: Address,
  maxTimeoutSeconds = 300,
): Promise<FacilitatorRequest> {
  return fixture.buildRequest(scheme, payTo, { maxTimeoutSeconds, now })
}

/** Every token Transfer to `payTo` since genesis. */
async function transfersTo(payTo: Address) {
  return client.getLogs({
    address: assets.get(BASE, 'USDC').address as Address,
    event: transferEvent,
    args: { to: payTo },
    fromBlock: 0n,
  })
}

function balanceOf(owner: Address): Promise<bigint> {
  return client.readContract({
    address: assets.get(BASE, 'USDC').address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}

async function relayerNonces(): Promise<number[]> {
  return Promise.all(keys('relayer').map((a) => client.getTransactionCount({ address: a.address })))
}

for (const kind of testDatabaseKinds) {
  describe(`a dropped settlement transaction after a restart, on ${kind.name}`, () => {
    const cleanups: Array<() => Promise<void> | void> = []
    afterEach(async () => {
      await anvil.setAutomine(true)
      for (const cleanup of cleanups.splice(0).reverse()) {
        await cleanup()
      }
    })

    /** Settles `request` with automine off (pending), "restarts", and drops the transaction. */
    async function sendAndDrop(request: FacilitatorRequest) {
      const database: TestDatabase = await kind.open()
      cleanups.push(() => database.cleanup())
      const first = startProcess(
        await createPostgresSettlementStore({ db: database.db, schema: database.schema }),
      )
      cleanups.push(() => first.stop())
      await anvil.setAutomine(false)
      const pending = await first.facilitator.settle(request)
      expect(pending).toMatchObject({ success: false, errorReason: 'settlement_pending' })
      const dropped = pending.transaction as Hash
      const sent = await client.getTransaction({ hash: dropped })
      expect(sent.blockNumber).toBeNull()
      first.stop()

      await anvil.dropTransaction({ hash: dropped })
      await expect(client.getTransaction({ hash: dropped })).rejects.toThrow(/could not be found/)
      await anvil.setAutomine(true)
      const store = await createPostgresSettlementStore({ db: database.db, schema: database.schema })
      const second = startProcess(store, sent.from)
      cleanups.push(() => second.stop())
      /** The settlement rows as the database holds them. */
      const rows = async () =>
        (
          await sql<{ state: string; transaction: string | null }>`
            select state, transaction from ${sql.table(`${database.schema}.x402_settlements`)}`.execute(
            database.db,
          )
        ).rows
      expect(await rows()).toEqual([{ state: 'pending', transaction: dropped }])
      return { dropped, store, rows, facilitator: second.facilitator }
    }

    test.each(['eip3009', 'permit2'] as const)(
      'default (%s): the reconciler settles it anew, once, and stores the new hash',
      async (scheme) => {
        const payTo = privateKeyToAccount(generatePrivateKey()).address
        const request = await buildRequest(scheme, payTo)
        const { dropped, rows, facilitator } = await sendAndDrop(request)

        expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
        const answer = await facilitator.settle(request)
        expect(answer).toMatchObject({ success: true })
        expect(answer.transaction).not.toBe(dropped)
        expect(await rows()).toEqual([{ state: 'settled', transaction: answer.transaction }])
        await expect(client.getTransactionReceipt({ hash: dropped })).rejects.toThrow(/could not be found/)

        const transfers = await transfersTo(payTo)
        expect(transfers.map((t) => t.transactionHash)).toEqual([answer.transaction])
        expect(await balanceOf(payTo)).toBe(10_000n)
      },
    )

    test.each(['eip3009', 'permit2'] as const)(
      'behavior (%s): a payment someone else submitted meanwhile is answered with that transaction',
      async (scheme) => {
        const payTo = privateKeyToAccount(generatePrivateKey()).address
        const request = await buildRequest(scheme, payTo)
        const { rows, facilitator } = await sendAndDrop(request)
        const submitter = keys('payer')[1]
        if (!submitter) {
          throw new Error('no second payer')
        }
        const wallet = createWalletClient({ account: submitter, chain: client.chain, transport: http() })
        const other = await submitElsewhere(wallet, request)
        await client.waitForTransactionReceipt({ hash: other })
        const before = await relayerNonces()

        expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
        expect(await facilitator.settle(request)).toMatchObject({ success: true, transaction: other })
        expect(await relayerNonces()).toEqual(before)
        expect((await transfersTo(payTo)).map((t) => t.transactionHash)).toEqual([other])
        expect(await rows()).toEqual([{ state: 'settled', transaction: other }])
      },
    )

    test('behavior: an authorization that expired unused fails for good; no money moved', async () => {
      const payTo = privateKeyToAccount(generatePrivateKey()).address
      const request = await buildRequest('eip3009', payTo, 30)
      const payer = getAddress((request.paymentPayload.payload.authorization as { from: string }).from)
      const payerBalance = await balanceOf(payer)
      const { rows, facilitator } = await sendAndDrop(request)
      // Chain time past validBefore plus the 60 s expiry margin (clocks follow the chain).
      await anvil.increaseTime({ seconds: 30 + 60 + 5 })
      warpSeconds += 30 + 60 + 5
      await anvil.mine({ blocks: 1 })
      const before = await relayerNonces()

      expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, failed: 1 })
      expect(await facilitator.settle(request)).toMatchObject({
        success: false,
        errorReason: 'invalid_exact_evm_payload_authorization_valid_before',
        transaction: '',
      })
      expect(await relayerNonces()).toEqual(before)
      expect(await transfersTo(payTo)).toEqual([])
      expect(await balanceOf(payer)).toBe(payerBalance)
      expect(await rows()).toEqual([{ state: 'failed', transaction: null }])
    })
  })
}

/** Submits the payment's own signed authorization from another account (another facilitator). */
async function submitElsewhere(
  wallet: ReturnType<typeof createWalletClient>,
  request: FacilitatorRequest,
): Promise<Hash> {
  const { payload } = request.paymentPayload
  const account = wallet.account
  if (!account) {
    throw new Error('wallet without account')
  }
  if ('authorization' in payload) {
    const a = payload.authorization as Record<string, string>
    return wallet.writeContract({
      account,
      chain: wallet.chain,
      address: request.paymentRequirements.asset as Address,
      abi: eip3009Abi,
      functionName: 'transferWithAuthorization',
      args: [
        a.from as Address,
        a.to as Address,
        BigInt(a.value ?? 0),
        BigInt(a.validAfter ?? 0),
        BigInt(a.validBefore ?? 0),
        a.nonce as Hex,
        payload.signature as Hex,
      ],
    })
  }
  const p = payload.permit2Authorization as {
    from: Address
    permitted: { token: Address; amount: string }
    nonce: string
    deadline: string
    witness: { to: Address; validAfter: string }
  }
  return wallet.writeContract({
    account,
    chain: wallet.chain,
    address: X402_EXACT_PERMIT2_PROXY_ADDRESS,
    abi: x402ExactPermit2ProxyAbi,
    functionName: 'settle',
    args: [
      {
        permitted: { token: p.permitted.token, amount: BigInt(p.permitted.amount) },
        nonce: BigInt(p.nonce),
        deadline: BigInt(p.deadline),
      },
      p.from,
      { to: p.witness.to, validAfter: BigInt(p.witness.validAfter) },
      payload.signature as Hex,
    ],
  })
}
