import { generateKeyPairSigner } from '@solana/kit'
import { createAssetRegistry, SOLANA_DEVNET } from '@tollgate/core'
import { createEip3009Facilitator, createPermit2Facilitator, type Relayer } from '@tollgate/evm'
import { createSolanaFacilitator, type SolanaFacilitatorRpc } from '@tollgate/svm'
import { createFacilitator, type Facilitator } from '../create-facilitator.js'
import type { SettlementStore } from '../settlement-store.js'

// Well-formed requests of every scheme and x402 version, for hostile-input tests to mutate, and a
// facilitator whose chains can never make one of them valid (see docs/input-limits.md).

const NOW = 1_750_000_000
const BASE_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const USDT = '0xF71D5fd7d9fa429e57a8882f094F385eD64FF97f'
const PAYER = '0x00000000000000000000000000000000000000cc'
/** Where the hostile-input requests pay to on EVM networks. */
export const HOSTILE_INPUT_MERCHANT = '0x00000000000000000000000000000000000000bb'
const SOLANA_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
/** Where the hostile-input requests pay to on Solana. */
export const HOSTILE_INPUT_SOLANA_PAYEE = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
const SIGNATURE = `0x${'11'.repeat(65)}`

function evmRequirements(asset: string, extra: Record<string, unknown>) {
  return {
    scheme: 'exact',
    network: 'eip155:84532',
    amount: '10000',
    asset,
    payTo: HOSTILE_INPUT_MERCHANT,
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

/** A well-formed EIP-3009 payload whose signature recovers to nobody. */
export const eip3009Payload = {
  signature: SIGNATURE,
  authorization: {
    from: PAYER,
    to: HOSTILE_INPUT_MERCHANT,
    value: '10000',
    validAfter: String(NOW - 60),
    validBefore: String(NOW + 120),
    nonce: `0x${'ab'.repeat(32)}`,
  },
}
/** A well-formed Permit2 payload whose signature recovers to nobody. */
export const permit2Payload = {
  signature: SIGNATURE,
  permit2Authorization: {
    from: PAYER,
    permitted: { token: USDT, amount: '10000' },
    spender: '0x402085c248EeA27D92E8b30b2C58ed07f9E20001',
    nonce: '12345',
    deadline: String(NOW + 120),
    witness: { to: HOSTILE_INPUT_MERCHANT, validAfter: String(NOW - 60) },
  },
}
const usdcRequirements = evmRequirements(BASE_USDC, { name: 'USDC', version: '2' })
const usdtRequirements = evmRequirements(USDT, {})
const solanaRequirements = {
  scheme: 'exact',
  network: SOLANA_DEVNET,
  amount: '10000',
  asset: SOLANA_MINT,
  payTo: HOSTILE_INPUT_SOLANA_PAYEE,
  maxTimeoutSeconds: 60,
  extra: { feePayer: HOSTILE_INPUT_SOLANA_PAYEE },
}
/** A Solana payload whose transaction does not decode. */
export const solanaPayload = { transaction: Buffer.from('not a transaction').toString('base64') }

/** One well-formed `/verify` / `/settle` body per scheme and x402 version (none of them valid). */
export const HOSTILE_INPUT_BASES = {
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

/** The assets the hostile-input facilitator serves (Base Sepolia USDC and USDT, devnet USDC). */
export const hostileInputAssets = createAssetRegistry([
  {
    network: 'eip155:84532',
    symbol: 'USDC',
    address: BASE_USDC,
    decimals: 6,
    transferMethods: ['eip3009'],
    eip712: { name: 'USDC', version: '2' },
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

/**
 * A facilitator serving eip3009 and permit2 on Base Sepolia and solana on devnet, over a chain with
 * no contract code that refuses every call and a relayer that never sends: no request can be a
 * valid payment, so hostile-input tests can tell a refusal from a crash.
 */
export async function createHostileInputFacilitator(
  options: { store?: SettlementStore } = {},
): Promise<Facilitator> {
  const evm = {
    networks: { 'eip155:84532': { client, relayer } },
    assets: hostileInputAssets,
    now: () => NOW * 1000,
  }
  const feePayers = [await generateKeyPairSigner()]
  return createFacilitator({
    schemes: [
      createEip3009Facilitator(evm),
      createPermit2Facilitator(evm),
      createSolanaFacilitator({
        networks: { [SOLANA_DEVNET]: { rpc: solanaRpc, feePayers } },
        assets: hostileInputAssets,
      }),
    ],
    ...(options.store ? { store: options.store } : {}),
  })
}
