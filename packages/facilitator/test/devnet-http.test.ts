import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Encoder,
} from '@solana/kit'
import {
  createAssetRegistry,
  type FacilitatorRequest,
  type PaymentPayload,
  type PaymentRequirements,
  type SchemeClient,
  type SchemeServer,
  type SettleResponse,
  SOLANA_DEVNET,
  type SupportedResponse,
} from '@tollgate/core'
import {
  DEFAULT_EVM_NETWORKS,
  type DevnetNetwork,
  type LocalDevnet,
  startDevnet,
  toViemChain,
} from '@tollgate/devnet'
import {
  createEip3009Client,
  createEip3009Server,
  createPermit2Client,
  createPermit2Server,
} from '@tollgate/evm'
import { createSolanaClient, createSolanaServer } from '@tollgate/svm'
import { sql } from 'kysely'
import { type Address, createPublicClient, erc20Abi, type Hex, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openSettlementDatabase } from '../src/open-settlement-database.js'
import { startDevnetFacilitator } from './devnet-facilitator.js'

const BASE = 'eip155:84532'
const BSC = 'eip155:97'

let devnet: LocalDevnet
let facilitator: Awaited<ReturnType<typeof startDevnetFacilitator>>
const assets = () => createAssetRegistry(Object.values(devnet.networks).flatMap(toAssets))

beforeAll(async () => {
  devnet = await startDevnet({
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => ['eip155:84532', 'eip155:97'].includes(n.network)) },
    solana: { payers: 1, relayers: 1 },
  })
  facilitator = await startDevnetFacilitator(devnet)
}, 180_000)

afterAll(async () => {
  await facilitator?.stop()
  await devnet?.stop()
})

function toAssets(network: DevnetNetwork) {
  return Object.values(network.assets).map((a) => ({
    ...a,
    network: network.network as `${string}:${string}`,
  }))
}

function payerKey(network: string): string {
  return devnet.wallets.find((w) => w.network === network && w.role === 'payer')?.privateKey ?? ''
}

/** POSTs to our facilitator with its bearer token. */
async function call<T>(path: '/verify' | '/settle', body: FacilitatorRequest): Promise<T> {
  const response = await fetch(`${facilitator.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${facilitator.token}` },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  return (await response.json()) as T
}

async function createPayment(
  server: SchemeServer,
  client: SchemeClient,
  network: string,
  symbol: string,
  amount: bigint,
  payTo: string,
  supportedKind?: SupportedResponse['kinds'][number],
): Promise<{ x402Version: 2; paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements }> {
  const paymentRequirements = server.createRequirements({
    asset: assets().get(network, symbol),
    amount,
    payTo,
    ...(supportedKind ? { supportedKind } : {}),
  })
  const payload = await client.createPayload(paymentRequirements)
  return {
    x402Version: 2,
    paymentRequirements,
    paymentPayload: {
      x402Version: 2,
      resource: { url: 'http://merchant.test/paid' },
      accepted: paymentRequirements,
      payload,
    },
  }
}

async function getTokenBalance(network: string, symbol: string, owner: string): Promise<bigint> {
  const net = devnet.networks[network] as DevnetNetwork
  const client = createPublicClient({ chain: toViemChain(net), transport: http(), pollingInterval: 50 })
  return client.readContract({
    address: net.assets[symbol]?.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner as Address],
  })
}

function randomAddress(): Address {
  return privateKeyToAccount(
    `0x${crypto.getRandomValues(new Uint8Array(32)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '')}` as Hex,
  ).address
}

describe('our facilitator over HTTP on the devnet', () => {
  test('default: /supported lists an exact kind per network and the relayers as signers', async () => {
    const response = await fetch(`${facilitator.url}/supported`, {
      headers: { Authorization: `Bearer ${facilitator.token}` },
    })
    const supported = (await response.json()) as SupportedResponse
    const v2 = supported.kinds.filter((k) => k.x402Version === 2).map((k) => k.network)
    expect(v2.sort()).toEqual([BSC, BASE, SOLANA_DEVNET].sort())
    expect(supported.kinds.find((k) => k.network === SOLANA_DEVNET)?.extra?.feePayer).toEqual(
      expect.any(String),
    )
    expect(
      supported.kinds
        .filter((k) => k.x402Version === 1)
        .map((k) => k.network)
        .sort(),
    ).toEqual(['base-sepolia', 'bsc-testnet', 'solana-devnet'])
    const relayers = devnet.wallets.filter((w) => w.role === 'relayer' && w.network.startsWith('eip155:'))
    expect(new Set(supported.signers['eip155:*'])).toEqual(new Set(relayers.map((w) => w.address)))
  })

  test('behavior: eip3009 payment verifies and settles on Base Sepolia USDC', async () => {
    const payTo = randomAddress()
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
    const request = await createPayment(createEip3009Server(), client, BASE, 'USDC', 1234n, payTo)
    expect(await call('/verify', request)).toMatchObject({ isValid: true })
    const settled = await call<SettleResponse>('/settle', request)
    expect(settled).toMatchObject({ success: true, network: BASE, transaction: expect.stringMatching(/^0x/) })
    expect(await getTokenBalance(BASE, 'USDC', payTo)).toBe(1234n)
    // Settled again (another request with the same payment): refused, and no second transfer.
    expect(await call('/settle', request)).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
      transaction: '',
    })
    expect(await getTokenBalance(BASE, 'USDC', payTo)).toBe(1234n)
  })

  test('behavior: permit2 payment settles on BSC testnet USDT (18 decimals)', async () => {
    const payTo = randomAddress()
    const client = createPermit2Client({ account: privateKeyToAccount(payerKey(BSC) as Hex) })
    const amount = 3n * 10n ** 18n
    const request = await createPayment(createPermit2Server(), client, BSC, 'USDT', amount, payTo)
    expect(await call('/verify', request)).toMatchObject({ isValid: true })
    expect(await call('/settle', request)).toMatchObject({ success: true, network: BSC })
    expect(await getTokenBalance(BSC, 'USDT', payTo)).toBe(amount)
  })

  test('behavior: solana payment settles with the fee payer from /supported', async () => {
    const network = devnet.networks[SOLANA_DEVNET] as DevnetNetwork
    const payer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(payerKey(SOLANA_DEVNET)))
    const payTo = (await generateKeyPairSigner()).address
    await devnet.fund({ network: SOLANA_DEVNET, address: payTo, asset: 'USDC', amount: 0n })
    const supported = (await (
      await fetch(`${facilitator.url}/supported`, {
        headers: { Authorization: `Bearer ${facilitator.token}` },
      })
    ).json()) as SupportedResponse
    const kind = supported.kinds.find((k) => k.network === SOLANA_DEVNET && k.x402Version === 2)
    const client = createSolanaClient({
      signer: payer,
      rpcs: { [SOLANA_DEVNET]: createSolanaRpc(network.rpcUrl) },
    })
    const request = await createPayment(
      createSolanaServer(),
      client,
      SOLANA_DEVNET,
      'USDC',
      2500n,
      payTo,
      kind,
    )
    expect(await call('/verify', request)).toMatchObject({ isValid: true, payer: payer.address })
    const settled = await call<SettleResponse>('/settle', request)
    expect(settled).toMatchObject({ success: true, network: SOLANA_DEVNET, payer: payer.address })
    expect(await call('/settle', request)).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
    })
  })

  test('behavior: 50 concurrent settles of one payment send one transaction', async () => {
    const payTo = randomAddress()
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
    const request = await createPayment(createEip3009Server(), client, BASE, 'USDC', 777n, payTo)
    const net = devnet.networks[BASE] as DevnetNetwork
    const chain = createPublicClient({ chain: toViemChain(net), transport: http(), pollingInterval: 50 })
    const relayers = devnet.wallets.filter((w) => w.network === BASE && w.role === 'relayer')
    const nonces = async () =>
      (
        await Promise.all(relayers.map((w) => chain.getTransactionCount({ address: w.address as Address })))
      ).reduce((a, b) => a + b, 0)
    const before = await nonces()
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call<SettleResponse>('/settle', request)),
    )
    // One transaction, and its success answered to one of the 50 requests.
    expect(results.filter((r) => r.success)).toHaveLength(1)
    expect(results.filter((r) => r.errorReason === 'duplicate_settlement')).toHaveLength(49)
    expect(await nonces()).toBe(before + 1)
    expect(await getTokenBalance(BASE, 'USDC', payTo)).toBe(777n)
  })

  test('behavior: an invalid payment is HTTP 200 with the reference reason', async () => {
    const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
    const request = await createPayment(createEip3009Server(), client, BASE, 'USDC', 1000n, randomAddress())
    const tampered = { ...request, paymentRequirements: { ...request.paymentRequirements, amount: '2000' } }
    const answer = await call<{ isValid: boolean; invalidReason?: string }>('/verify', {
      ...tampered,
      paymentPayload: { ...request.paymentPayload, accepted: tampered.paymentRequirements },
    })
    expect(answer.isValid).toBe(false)
    expect(answer.invalidReason).toMatch(/^invalid_exact_evm_|^invalid_payment_requirements/)
  })

  test.skipIf(!process.env.TEST_DATABASE_URL)(
    'behavior: two facilitator processes on one PostgreSQL settle a payment once (needs TEST_DATABASE_URL)',
    async () => {
      const schema = `facilitator_e2e_${Date.now().toString(36)}`
      const env = { TEST_DB: process.env.TEST_DATABASE_URL ?? '' }
      const overrides = { databaseUrlEnv: 'TEST_DB', databaseSchema: schema }
      const a = await startDevnetFacilitator(devnet, overrides, env)
      const b = await startDevnetFacilitator(devnet, overrides, env)
      try {
        const payTo = randomAddress()
        const client = createEip3009Client({ account: privateKeyToAccount(payerKey(BASE) as Hex) })
        const request = await createPayment(createEip3009Server(), client, BASE, 'USDC', 555n, payTo)
        const settle = (url: string) =>
          fetch(`${url}/settle`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${facilitator.token}` },
            body: JSON.stringify(request),
          }).then((r) => r.json() as Promise<SettleResponse>)
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => settle(i % 2 ? a.url : b.url)))
        expect(results.filter((r) => r.success)).toHaveLength(1)
        expect(results.every((r) => r.success || r.errorReason === 'duplicate_settlement')).toBe(true)
        expect(await getTokenBalance(BASE, 'USDC', payTo)).toBe(555n)
        // The store counts are for the token's holder; without it /health is liveness only.
        const health = await (
          await fetch(`${a.url}/health`, { headers: { Authorization: `Bearer ${facilitator.token}` } })
        ).json()
        expect(health).toMatchObject({ settlements: { settled: 1 } })
      } finally {
        await a.stop()
        await b.stop()
        const db = await openSettlementDatabase({ databaseUrl: env.TEST_DB })
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db)
        await db.destroy()
      }
    },
  )
})
