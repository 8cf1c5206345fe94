import { createKeyPairSignerFromBytes, createSolanaRpc, getBase58Encoder } from '@solana/kit'
import type { PaymentRequirements } from '@tollgate/core'
import {
  DEFAULT_EVM_NETWORKS,
  type LocalDevnet,
  SOLANA_DEVNET_NETWORK,
  startDevnet,
  toViemChain,
} from '@tollgate/devnet'
import { approvePermit2, createEip3009Client, createPermit2Client } from '@tollgate/evm'
import { createMemorySettlementStore, type Facilitator } from '@tollgate/facilitator'
import { createDevnetFacilitator } from '@tollgate/facilitator/devnet'
import { createSolanaClient } from '@tollgate/svm'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  parseUnits,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { checkLedgerInvariants } from '../ledger/check-ledger-invariants.js'
import { createRails } from '../rails/create-rails.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { fundSolanaTreasury } from '../testing/solana-treasury.js'
import { registerSessionHandlers } from './register-session-handlers.js'

// Agents pay payment sessions through POST /payments/agent/verify and /settle on the devnet: the
// service settles with its in-process facilitator (paying the gas) and the session closes through
// the same state machine the watcher drives; the watcher, seeing the transaction later, adds nothing.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

const BASE = 'eip155:84532'
let devnet: LocalDevnet
let facilitator: Facilitator
let closeFacilitator: () => void

beforeAll(async () => {
  devnet = await startDevnet({ evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) } })
  ;({ facilitator, close: closeFacilitator } = await createDevnetFacilitator(devnet, {
    store: createMemorySettlementStore(),
  }))
})
afterAll(async () => {
  closeFacilitator?.()
  await devnet?.stop()
})

const payerKey = (network: string) =>
  devnet.wallets.find((w) => w.network === network && w.role === 'payer')?.privateKey ?? ''

describeEachDatabase('agent payments on payment sessions', (getDb) => {
  let h: Harness
  let unsubscribe: () => void

  beforeAll(async () => {
    h = await createHarness(getDb(), {
      facilitator,
      rails: (base) =>
        createRails(base, {
          networks: devnet.networks,
          pollIntervalMs: 100,
          confirmations: { test: { base: 1, solana: 1 } },
        }),
    })
    unsubscribe = registerSessionHandlers(h.deps)
    // The Solana treasury pays the rent of the session addresses' token accounts, as in the sandbox.
    await fundSolanaTreasury(devnet, h.deps.rails, 0n)
    await h.deps.rails.start()
  })
  afterAll(async () => {
    await h.deps.rails.stop()
    unsubscribe()
  })

  const post = async (path: string, json: unknown) => {
    const res = await h.request(`/api/v1${path}`, { method: 'POST', json })
    return { status: res.status, body: (await res.json()) as Json }
  }
  const open = async (chain: string, amount = '2.00', asset = 'USDC'): Promise<Json> => {
    const { status, body } = await post('/payments', {
      title: 'Agent order',
      amount,
      currency: 'USD',
      asset,
      chain,
      // With a customer the address is created with the session (else POST /payments/{reference}/address).
      customer: { email: 'agent@example.com' },
    })
    expect(status).toBe(200)
    return body.data
  }
  // What the merchant answers the agent with: x402 requirements paying the session's address.
  const requirementsFor = async (session: Json, method: 'eip3009' | 'permit2' | 'solana') => {
    const { status, body } = await post('/x402/requirements', {
      chain: session.payment.chain,
      asset: session.payment.asset,
      amount: session.payment.amount,
      payTo: session.payment.address,
      x402Version: 2,
    })
    expect(status, JSON.stringify(body)).toBe(201)
    const accepts = body.data.accepts as PaymentRequirements[]
    const offer = accepts.find((a) => (method === 'permit2') === (a.extra?.assetTransferMethod === 'permit2'))
    return offer as PaymentRequirements
  }
  const agentBody = (session: Json, scheme: string, payload: unknown) => ({
    sessionReference: session.reference,
    scheme,
    chain: session.payment.chain,
    asset: session.payment.asset.toLowerCase(),
    payload,
  })
  const session = async (reference: string) =>
    (await (
      await h.request(`/api/v1/payments/reference/${reference}?includeTransactions=true`)
    ).json()) as Json
  const sessionTransactions = (id: string) =>
    h.deps.db.selectFrom('payment_session_transactions').selectAll().where('session_id', '=', id).execute()

  test('default: an eip3009 agent payment verifies, settles, completes the session once', async () => {
    const opened = await open('base')
    const requirements = await requirementsFor(opened, 'eip3009')
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
    const signed = (await client.createPayload(requirements)) as Json
    // The spec's flat eip3009 payload: from, to, value, validAfter, validBefore, nonce, signature.
    const flat = { ...signed.authorization, signature: signed.signature }

    const verified = await post('/payments/agent/verify', agentBody(opened, 'eip3009', flat))
    expect(verified.status).toBe(200)
    expect(verified.body.data).toMatchObject({
      valid: true,
      reason: null,
      amount: opened.payment.amount,
      checks: { session: 'pass', amount: 'pass', balance: 'pass', nonce: 'pass' },
    })

    const idempotent = { 'Idempotency-Key': `agent-${opened.reference}` }
    const settle = async (headers: Record<string, string> = {}) => {
      const res = await h.request('/api/v1/payments/agent/settle', {
        method: 'POST',
        json: agentBody(opened, 'eip3009', flat),
        headers,
      })
      return { status: res.status, body: (await res.json()) as Json }
    }
    const settled = await settle(idempotent)
    expect(settled.status).toBe(201)
    const txHash = settled.body.data.transaction.txHash as string
    expect(settled.body.data).toMatchObject({
      transaction: { status: 'confirmed', amount: opened.payment.amount, chain: 'base', asset: 'USDC' },
      session: { state: 'closed', payment: { status: 'completed', txHash } },
    })
    // The same request again with its Idempotency-Key is the stored answer; without one, the closed
    // session refuses it before anything is sent. The watcher's polls add nothing either.
    expect(await settle(idempotent)).toEqual(settled)
    const refused = await settle()
    expect([refused.status, refused.body.error.details.reason]).toEqual([400, 'session_closed'])
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await sessionTransactions(opened.id)).toHaveLength(1)
    const events = await h.deps.db
      .selectFrom('events')
      .select('type')
      .where('merchant_id', '=', h.a.id)
      .execute()
    expect(events.filter((e) => e.type === 'payment.completed').length).toBeGreaterThanOrEqual(1)
    expect((await session(opened.reference)).data.transactions).toHaveLength(1)
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('conformance: the spec body (scheme, chain, asset, payload) verifies without a session; a 400 has valid and checks in data', async () => {
    const opened = await open('base', '0.40')
    const requirements = await requirementsFor(opened, 'eip3009')
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
    const signed = (await client.createPayload(requirements)) as Json
    const payload = { ...signed.authorization, signature: signed.signature }
    // Spec: "POST /payments/agent/verify - body: scheme, chain, asset, payload"; 200 for a valid payment.
    const ok = await post('/payments/agent/verify', {
      scheme: 'eip3009',
      chain: 'base',
      asset: 'USDC',
      payload,
    })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body.data).toMatchObject({
      valid: true,
      amount: opened.payment.amount,
      checks: {
        session: 'not_checked',
        recipient: 'not_checked',
        amount: 'not_checked',
        timestamp: 'pass',
        authorization: 'pass',
        nonce: 'pass',
        balance: 'pass',
      },
    })
    // "or 400 with per-check results": `valid` and `checks` where a client reads a response, in data.
    const tampered = { ...payload, value: String(BigInt(payload.value) + 1n) }
    const bad = await post('/payments/agent/verify', {
      scheme: 'eip3009',
      chain: 'base',
      asset: 'USDC',
      payload: tampered,
    })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ success: false, error: { code: 'invalid_payment' } })
    expect(bad.body.data).toMatchObject({ valid: false, checks: { session: 'not_checked' } })
    expect(Object.values(bad.body.data.checks)).toContain('fail')
    expect(bad.body.error.details).toEqual(bad.body.data)
    // Nothing was sent: the session is still waiting for its payment.
    expect(await sessionTransactions(opened.id)).toHaveLength(0)
    const solana = await post('/payments/agent/verify', {
      scheme: 'solana',
      chain: 'solana',
      asset: 'USDC',
      payload: { transaction: 'AA==' },
    })
    expect([solana.status, solana.body.error.code, solana.body.error.param]).toEqual([
      400,
      'validation_error',
      'sessionReference',
    ])
  })

  test('behavior: ten concurrent settles of one payment send one transfer, answer one and credit once', async () => {
    const opened = await open('base', '0.75')
    const requirements = await requirementsFor(opened, 'eip3009')
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
    const payload = await client.createPayload(requirements)
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post('/payments/agent/settle', agentBody(opened, 'eip3009', payload))),
    )
    // One payment, one delivery: one settle is answered the transfer.
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1)
    // The others are refused: a settle that starts after the session closed before sending
    // anything, one that shared the first one's settle as a duplicate of it.
    for (const answer of answers.filter((a) => a.status !== 201)) {
      const { details } = answer.body.error
      expect([answer.status, details.reason ?? details.errorReason]).toEqual([
        400,
        expect.stringMatching(/^(session_closed|duplicate_settlement)$/),
      ])
    }
    expect(await sessionTransactions(opened.id)).toHaveLength(1)
    expect(await checkLedgerInvariants(h.deps)).toEqual([])
  })

  test('behavior: a permit2 agent payment completes the session', async () => {
    const opened = await open('base', '1.50')
    const network = devnet.networks[BASE]
    const account = privateKeyToAccount(payerKey(BASE) as Hex)
    const chain = network ? toViemChain(network) : undefined
    const wallet = createWalletClient({ account, chain, transport: http(network?.rpcUrl) })
    const reader = createPublicClient({ chain, transport: http(network?.rpcUrl) })
    await reader.waitForTransactionReceipt({
      hash: await approvePermit2({ wallet, token: network?.assets.USDC?.address as Address }),
    })
    const requirements = await requirementsFor(opened, 'permit2')
    const payload = await createPermit2Client({ account }).createPayload(requirements)
    const settled = await post('/payments/agent/settle', agentBody(opened, 'permit2', payload))
    expect(settled.status).toBe(201)
    expect(settled.body.data.session).toMatchObject({ state: 'closed', payment: { status: 'completed' } })
    const paid = await reader.readContract({
      address: network?.assets.USDC?.address as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [opened.payment.address as Address],
    })
    expect(paid).toBe(parseUnits(opened.payment.amount, 6))
  })

  test.each(['USDC', 'USDT'])(
    'behavior: a solana agent payment in %s completes the session',
    async (asset) => {
      const opened = await open('solana', '1.25', asset)
      // An x402 transaction cannot create the session's token account: the job the session enqueued
      // opens it (docs/sessions.md "Agent payments"). Nothing else opens it in this test.
      const owner = { environment: 'test', chain: 'solana', asset, owner: opened.payment.address } as const
      const jobs = await h.deps.db
        .selectFrom('jobs')
        .select('payload')
        .where('kind', '=', 'rails.open-token-account')
        .execute()
      expect(jobs.map((j) => j.payload)).toContainEqual(owner)
      await h.runner.runDue()
      expect(await h.deps.rails.crypto.openTokenAccount?.(owner)).toBe('exists')
      const requirements = await requirementsFor(opened, 'solana')
      const signer = await createKeyPairSignerFromBytes(
        getBase58Encoder().encode(payerKey(SOLANA_DEVNET_NETWORK)),
      )
      const client = createSolanaClient({
        signer,
        rpcs: {
          [SOLANA_DEVNET_NETWORK]: createSolanaRpc(devnet.networks[SOLANA_DEVNET_NETWORK]?.rpcUrl ?? ''),
        },
      })
      const payload = await client.createPayload(requirements)
      const verified = await post('/payments/agent/verify', agentBody(opened, 'solana', payload))
      expect(verified.body.data, JSON.stringify(verified.body)).toMatchObject({
        valid: true,
        payer: signer.address,
      })
      const settled = await post('/payments/agent/settle', agentBody(opened, 'solana', payload))
      expect(settled.status).toBe(201)
      expect(settled.body.data.session).toMatchObject({ state: 'closed', payment: { status: 'completed' } })
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(await sessionTransactions(opened.id)).toHaveLength(1)
    },
  )

  test('behavior: the wrong amount, an expired or closed session are refused with per-check results', async () => {
    const opened = await open('base', '3.00')
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
    const requirements = await requirementsFor(opened, 'eip3009')
    const short = await client.createPayload({ ...requirements, amount: '1000' })
    const wrong = await post('/payments/agent/verify', agentBody(opened, 'eip3009', short))
    expect(wrong.status).toBe(400)
    expect(wrong.body.data).toEqual(wrong.body.error.details)
    expect(wrong.body.error).toMatchObject({
      code: 'invalid_payment',
      details: {
        valid: false,
        checks: { session: 'pass', recipient: 'pass', amount: 'fail', balance: 'not_checked' },
      },
    })
    const refused = await post('/payments/agent/settle', agentBody(opened, 'eip3009', short))
    expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid_payment'])
    expect(await sessionTransactions(opened.id)).toHaveLength(0)

    await h.deps.db
      .updateTable('payment_sessions')
      .set({ expires_at: new Date(Date.now() - 1_000) })
      .where('id', '=', opened.id)
      .execute()
    const good = await client.createPayload(requirements)
    const expired = await post('/payments/agent/settle', agentBody(opened, 'eip3009', good))
    expect(expired.status).toBe(400)
    expect(expired.body.error.details).toMatchObject({
      reason: 'session_expired',
      checks: { session: 'fail', amount: 'not_checked' },
    })
    expect(await sessionTransactions(opened.id)).toHaveLength(0)

    const unknown = await post('/payments/agent/verify', {
      ...agentBody(opened, 'eip3009', good),
      sessionReference: 'nope',
    })
    expect(unknown.status).toBe(404)
    const sol = await post('/payments/agent/verify', {
      ...agentBody(opened, 'eip3009', good),
      asset: 'SOL',
      chain: 'solana',
    })
    expect([sol.status, sol.body.error.code]).toEqual([400, 'unsupported_asset_chain'])
  })
})
