import { generateKeyPairSigner } from '@solana/kit'
import { createAssetRegistry, SOLANA_DEVNET } from '@tollgate/core'
import {
  deepNesting,
  MALFORMED_BODIES,
  sampleHostileBodies,
  sweepHostileBodies,
  toHostileJsonText,
} from '@tollgate/core/testing'
import { createEip3009Facilitator, createPermit2Facilitator, type Relayer } from '@tollgate/evm'
import { createSolanaFacilitator, type SolanaFacilitatorRpc } from '@tollgate/svm'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createFacilitator } from './create-facilitator.js'
import { createFacilitatorApp } from './create-facilitator-app.js'
import { openSettlementDatabase } from './open-settlement-database.js'
import { createPostgresSettlementStore, type SettlementDatabase } from './postgres-settlement-store.js'
import { SETTLEMENT_TABLE } from './settlement-migrations.js'

// The facilitator's promise (docs/facilitator.md): malformed input is a 4xx `{ error, message }`
// that stores nothing, an invalid payment is a 200 with isValid/success false, and neither is ever
// a 5xx. (A well-formed but invalid /settle may leave its `failed` outcome in the settlement store,
// as every settle does.) Each scheme gets well-formed v1 and v2 bodies to mutate; the chain behind
// them knows no code and refuses every call, so no hostile body can be valid.

const NOW = 1_750_000_000
const BASE_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const USDT = '0xF71D5fd7d9fa429e57a8882f094F385eD64FF97f'
const PAYER = '0x00000000000000000000000000000000000000cc'
const MERCHANT = '0x00000000000000000000000000000000000000bb'
const SOLANA_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
const SOLANA_PAYEE = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
const SIGNATURE = `0x${'11'.repeat(65)}`

function evmRequirements(asset: string, extra: Record<string, unknown>) {
  return {
    scheme: 'exact',
    network: 'eip155:84532',
    amount: '10000',
    asset,
    payTo: MERCHANT,
    maxTimeoutSeconds: 300,
    extra,
  }
}

function toV1(requirements: ReturnType<typeof evmRequirements>, network: string, payload: unknown) {
  const { amount, network: _caip2, ...rest } = requirements
  return {
    x402Version: 1,
    paymentPayload: { x402Version: 1, scheme: 'exact', network, payload },
    paymentRequirements: {
      ...rest,
      network,
      maxAmountRequired: amount,
      resource: 'https://merchant.example/paid',
      description: 'paid',
    },
  }
}

function toV2(requirements: Record<string, unknown>, payload: unknown) {
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      resource: { url: 'https://merchant.example/paid' },
      accepted: requirements,
      payload,
    },
    paymentRequirements: requirements,
  }
}

const eip3009Payload = {
  signature: SIGNATURE,
  authorization: {
    from: PAYER,
    to: MERCHANT,
    value: '10000',
    validAfter: String(NOW - 60),
    validBefore: String(NOW + 120),
    nonce: `0x${'ab'.repeat(32)}`,
  },
}
const permit2Payload = {
  signature: SIGNATURE,
  permit2Authorization: {
    from: PAYER,
    permitted: { token: USDT, amount: '10000' },
    spender: '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
    nonce: '12345',
    deadline: String(NOW + 120),
    witness: { to: MERCHANT, validAfter: String(NOW - 60) },
  },
}
const usdcRequirements = evmRequirements(BASE_USDC, { name: 'USDC', version: '2' })
const usdtRequirements = evmRequirements(USDT, {})
const solanaRequirements = {
  scheme: 'exact',
  network: SOLANA_DEVNET,
  amount: '10000',
  asset: SOLANA_MINT,
  payTo: SOLANA_PAYEE,
  maxTimeoutSeconds: 60,
  extra: { feePayer: SOLANA_PAYEE },
}
const solanaPayload = { transaction: Buffer.from('not a transaction').toString('base64') }

const BASES = {
  'eip3009 v2': toV2(usdcRequirements, eip3009Payload),
  'eip3009 v1': toV1(usdcRequirements, 'base-sepolia', eip3009Payload),
  'permit2 v2': toV2(usdtRequirements, permit2Payload),
  'solana v2': toV2(solanaRequirements, solanaPayload),
  'solana v1': {
    x402Version: 1,
    paymentPayload: { x402Version: 1, scheme: 'exact', network: 'solana-devnet', payload: solanaPayload },
    paymentRequirements: {
      ...solanaRequirements,
      network: 'solana-devnet',
      maxAmountRequired: '10000',
      resource: 'https://merchant.example/paid',
      description: 'paid',
    },
  },
} as const

// A chain with no contract code that refuses every other call, and a relayer that never sends.
const refuse = async (): Promise<never> => {
  throw new Error('the hostile-input test chain refuses calls')
}
const client = {
  getCode: async () => undefined,
  call: refuse,
  getBlock: refuse,
  getTransaction: refuse,
  getTransactionReceipt: refuse,
  getLogs: refuse,
}
const relayer: Relayer = {
  network: 'eip155:84532',
  send: refuse,
  waitForReceipt: refuse,
  getAddresses: () => ['0x000000000000000000000000000000000000fee1'],
  getBalances: async () => [],
  close: () => {},
}
const solanaRpc = new Proxy({}, { get: () => () => ({ send: refuse }) }) as SolanaFacilitatorRpc

type Outcome = { label: string; status: number; body: unknown; written: number }

describe('facilitator app under hostile input', () => {
  let db: Kysely<SettlementDatabase>
  let app: ReturnType<typeof createFacilitatorApp>
  const outcomes: Outcome[] = []

  beforeAll(async () => {
    db = await openSettlementDatabase()
    const store = await createPostgresSettlementStore({ db })
    const assets = createAssetRegistry([
      {
        network: 'eip155:84532',
        symbol: 'USDC',
        address: BASE_USDC,
        decimals: 6,
        transferMethods: ['eip3009'],
      },
      { network: 'eip155:84532', symbol: 'USDT', address: USDT, decimals: 6, transferMethods: ['permit2'] },
      {
        network: SOLANA_DEVNET,
        symbol: 'USDC',
        address: SOLANA_MINT,
        decimals: 6,
        transferMethods: ['solana'],
      },
    ])
    const evm = { networks: { 'eip155:84532': { client, relayer } }, assets, now: () => NOW * 1000 }
    const feePayers = [await generateKeyPairSigner()]
    const facilitator = createFacilitator({
      schemes: [
        createEip3009Facilitator(evm),
        createPermit2Facilitator(evm),
        createSolanaFacilitator({ networks: { [SOLANA_DEVNET]: { rpc: solanaRpc, feePayers } }, assets }),
      ],
      store,
    })
    app = createFacilitatorApp(facilitator, { bodyLimitBytes: 128 * 1024 })
  })
  afterAll(async () => {
    await db?.destroy()
  })

  const countRows = async () => {
    const row = await db
      .selectFrom(SETTLEMENT_TABLE)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  const send = async (label: string, path: string, text: string, contentType = 'application/json') => {
    const before = await countRows()
    const response = await app.request(path, {
      method: 'POST',
      body: text,
      headers: { 'Content-Type': contentType },
    })
    const raw = await response.text()
    let body: unknown = raw
    try {
      body = JSON.parse(raw)
    } catch {}
    outcomes.push({
      label: `${path} ${label}`,
      status: response.status,
      body,
      written: (await countRows()) - before,
    })
  }

  const expectNoServerErrors = (from: number) => {
    const answered = outcomes.slice(from)
    const failures = answered
      .filter((o) => o.status >= 500)
      .map((o) => `${o.status} ${o.label.slice(0, 160)}`)
    expect(failures, `${failures.length} of ${answered.length} answered 5xx`).toEqual([])
    for (const { label, status, body, written } of answered) {
      if (status === 200) {
        // Nothing hostile is ever a valid payment.
        expect(body, label).toSatisfy(
          (b: { isValid?: boolean; success?: boolean }) => b.isValid === false || b.success === false,
        )
      } else {
        expect(status, label).toBeGreaterThanOrEqual(400)
        expect(written, label).toBe(0)
        expect(body, label).toMatchObject({ error: expect.any(String), message: expect.any(String) })
      }
    }
  }

  test('behavior: malformed bodies and bodies over the limit are 4xx on /verify and /settle', async () => {
    const from = outcomes.length
    for (const path of ['/verify', '/settle']) {
      for (const text of MALFORMED_BODIES) {
        await send(`malformed ${JSON.stringify(text.slice(0, 40))}`, path, text)
      }
      await send('over the limit', path, JSON.stringify({ a: 'x'.repeat(200 * 1024) }))
      await send('text/plain', path, JSON.stringify(BASES['eip3009 v2']), 'text/plain')
    }
    expectNoServerErrors(from)
  })

  for (const [name, base] of Object.entries(BASES)) {
    test(`behavior: ${name} bodies with hostile fields never get a 5xx; the refused ones store nothing`, async () => {
      const from = outcomes.length
      // Every field gets one value of each class of issue 21; then random mutations.
      const swept = sweepHostileBodies(base, [
        '12abc',
        '1e3',
        ' 5',
        '-0x1',
        'a\u0000b',
        'lone \ud800',
        deepNesting(3_000),
        deepNesting(10_000),
        null,
      ])
      const sampled = sampleHostileBodies(base, { count: 60, seed: 21 })
      for (const [index, body] of [...swept, ...sampled].entries()) {
        const text = toHostileJsonText(body)
        for (const path of ['/verify', '/settle']) {
          await send(`${name} #${index} ${text.slice(0, 200)}`, path, text)
        }
      }
      expectNoServerErrors(from)
    })
  }
})
