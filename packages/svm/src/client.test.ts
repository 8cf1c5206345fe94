import { type Address, address, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit'
import { createAssetRegistry, isAppError, type PaymentRequirements, SOLANA_DEVNET } from '@tollgate/core'
import { beforeAll, describe, expect, test } from 'vitest'
import { createSolanaClient, type SolanaClientRpc } from './client.js'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './constants.js'
import { decodePaymentTransaction } from './decode-payment-transaction.js'
import { createSolanaFacilitator, type SolanaFacilitatorRpc } from './facilitator.js'
import { toAddress } from './raw-keys.js'
import { FAKE_BLOCKHASH } from './testing/payment-fixtures.js'

// A mint account: 82 bytes, decimals at byte 44.
const mintData = (decimals: number) => {
  const data = Buffer.alloc(82)
  data[44] = decimals
  data[45] = 1
  return [data.toString('base64'), 'base64'] as const
}

let payer: KeyPairSigner
let feePayer: KeyPairSigner
let payTo: Address
const USDC = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU')
let mint2022: Address
let blockhashCalls = 0

const rpc = {
  getAccountInfo: (account: Address) => ({
    send: async () => ({
      context: { slot: 1n },
      value:
        account === USDC || account === mint2022
          ? { owner: account === USDC ? TOKEN_PROGRAM : TOKEN_2022_PROGRAM, data: mintData(6) }
          : null,
    }),
  }),
  getLatestBlockhash: () => ({
    send: async () => {
      blockhashCalls++
      return { context: { slot: 1n }, value: { blockhash: FAKE_BLOCKHASH, lastValidBlockHeight: 150n } }
    },
  }),
} as unknown as SolanaClientRpc

beforeAll(async () => {
  ;[payer, feePayer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()])
  payTo = (await generateKeyPairSigner()).address
  mint2022 = (await generateKeyPairSigner()).address
})

const requirementsFor = (overrides: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
  scheme: 'exact',
  network: SOLANA_DEVNET,
  amount: '12345',
  asset: USDC,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { feePayer: feePayer.address },
  ...overrides,
})

describe('createSolanaClient', () => {
  test('default: builds the reference layout, paid by extra.feePayer, signed by the payer only', async () => {
    const client = createSolanaClient({ signer: payer, rpcs: { [SOLANA_DEVNET]: rpc } })
    const payload = await client.createPayload(requirementsFor())
    const decoded = decodePaymentTransaction(payload.transaction as string)
    if (!decoded) {
      throw new Error('undecodable payload')
    }
    const { message, signatures } = decoded
    expect(message.version).toBe(0)
    expect(toAddress(message.accountKeys[0] as never)).toBe(feePayer.address)
    expect(signatures[0]?.every((b) => b === 0)).toBe(true)
    const [limit, price, transfer, memo] = message.instructions
    expect(limit?.data.readUInt32LE(1)).toBe(20_000)
    expect(price?.data.readBigUInt64LE(1)).toBe(1n)
    expect(transfer?.data.readBigUInt64LE(1)).toBe(12345n)
    expect(transfer?.data[9]).toBe(6)
    expect(toAddress(message.accountKeys[transfer?.programIndex ?? 0] as never)).toBe(TOKEN_PROGRAM)
    expect(memo?.data.toString('utf8')).toMatch(/^[0-9a-f]{32}$/)
    expect(message.instructions).toHaveLength(4)
    // What the client builds, our facilitator accepts (simulation aside).
    const facilitator = createSolanaFacilitator({
      networks: { [SOLANA_DEVNET]: { rpc: {} as SolanaFacilitatorRpc, feePayers: [feePayer] } },
      assets: createAssetRegistry(),
    })
    const requirements = requirementsFor()
    const verified = await facilitator.verify(
      { x402Version: 2, accepted: requirements, payload },
      requirements,
      {
        simulate: false,
      },
    )
    expect(verified).toEqual({ isValid: true, payer: payer.address })
  })

  test('behavior: two payments of the same requirements differ (random memo nonce)', async () => {
    const client = createSolanaClient({ signer: payer, rpcs: { [SOLANA_DEVNET]: rpc } })
    const [a, b] = await Promise.all([
      client.createPayload(requirementsFor()),
      client.createPayload(requirementsFor()),
    ])
    expect(a.transaction).not.toBe(b.transaction)
  })

  test('behavior: uses extra.memo, the blockhash hint, and Token-2022 from the mint owner', async () => {
    const client = createSolanaClient({ signer: payer, rpcs: { [SOLANA_DEVNET]: rpc } })
    blockhashCalls = 0
    const payload = await client.createPayload(
      requirementsFor({
        asset: mint2022,
        extra: { feePayer: feePayer.address, memo: 'order 9', recentBlockhash: FAKE_BLOCKHASH },
      }),
    )
    expect(blockhashCalls).toBe(0)
    const message = decodePaymentTransaction(payload.transaction as string)?.message
    const transfer = message?.instructions[2]
    expect(toAddress(message?.accountKeys[transfer?.programIndex ?? 0] as never)).toBe(TOKEN_2022_PROGRAM)
    expect(message?.instructions[3]?.data.toString('utf8')).toBe('order 9')
  })

  test('behavior: canPay and getAddress know only the configured networks and complete requirements', () => {
    const client = createSolanaClient({ signer: payer, rpcs: { [SOLANA_DEVNET]: rpc } })
    expect(client.canPay(requirementsFor())).toBe(true)
    expect(client.canPay(requirementsFor({ network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }))).toBe(false)
    expect(client.canPay(requirementsFor({ extra: {} }))).toBe(false)
    expect(client.canPay(requirementsFor({ scheme: 'upto' }))).toBe(false)
    expect(client.getAddress(SOLANA_DEVNET)).toBe(payer.address)
    expect(client.getAddress('eip155:8453')).toBeUndefined()
  })

  test('behavior: a mint that is not a token mint is unknown_asset', async () => {
    const client = createSolanaClient({ signer: payer, rpcs: { [SOLANA_DEVNET]: rpc } })
    const error = await client.createPayload(requirementsFor({ asset: payTo })).catch((e: unknown) => e)
    expect(isAppError(error, 'unknown_asset')).toBe(true)
    const unsupported = await client.createPayload(requirementsFor({ extra: {} })).catch((e: unknown) => e)
    expect(isAppError(unsupported, 'unsupported_scheme')).toBe(true)
  })
})
