import type { PaymentPayload, PaymentRequirements, SchemeClient, SchemeFacilitator } from '@tollgate/core'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as OfficialClient } from '@x402/evm/exact/client'
import { ExactEvmScheme as OfficialFacilitator } from '@x402/evm/exact/facilitator'
import { type Address, publicActions } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createEip3009Client } from './eip3009/client.js'
import { createEip3009Facilitator } from './eip3009/facilitator.js'
import { createEip3009Server } from './eip3009/server.js'
import { createPermit2Client } from './permit2/client.js'
import { createPermit2Facilitator } from './permit2/facilitator.js'
import { createPermit2Server } from './permit2/server.js'
import type { Relayer } from './relayer/types.js'
import { type EvmHarness, startEvmHarness } from './testing/devnet-harness.js'

// Interop with the reference implementation (@x402/evm 2.27): payloads signed by our clients
// verify with the official facilitator scheme, and the official client's payloads verify (and
// settle) with ours, for both EIP-3009 and Permit2.
const BASE = 'eip155:84532'
const merchant = '0x00000000000000000000000000000000000000b4' as Address

let harness: EvmHarness
let relayer: Relayer
let official: OfficialFacilitator
let ours: Record<'eip3009' | 'permit2', SchemeFacilitator>

beforeAll(async () => {
  harness = await startEvmHarness([BASE])
  relayer = harness.createRelayer(BASE)
  const networks = { [BASE]: { client: harness.clientOf(BASE), relayer } }
  ours = {
    eip3009: createEip3009Facilitator({ networks, assets: harness.assets }),
    permit2: createPermit2Facilitator({ networks, assets: harness.assets }),
  }
  const feePayer = harness.relayerAccounts(BASE)[3]
  if (!feePayer) {
    throw new Error('no relayer key')
  }
  const wallet = harness.walletOf(BASE, feePayer).extend(publicActions)
  // viem's verifyTypedData parameters are a stricter union than the reference's signer type.
  const verifyTypedData = (args: object) =>
    wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0])
  official = new OfficialFacilitator(
    toFacilitatorEvmSigner({ ...wallet, verifyTypedData, address: feePayer.address }),
  )
})

afterAll(async () => {
  relayer?.close()
  await harness?.stop()
})

const requirementsFor = (scheme: 'eip3009' | 'permit2'): PaymentRequirements => {
  const server = scheme === 'eip3009' ? createEip3009Server() : createPermit2Server()
  return server.createRequirements({
    asset: harness.assets.get(BASE, 'USDC'),
    amount: 2_500n,
    payTo: merchant,
  })
}

describe.each(['eip3009', 'permit2'] as const)('interop %s', (scheme) => {
  test('our client → the official facilitator verifies it', async () => {
    const account = harness.payers(BASE)[0]
    if (!account) {
      throw new Error('no payer')
    }
    const client: SchemeClient =
      scheme === 'eip3009' ? createEip3009Client({ account }) : createPermit2Client({ account })
    const requirements = requirementsFor(scheme)
    const payment: PaymentPayload = {
      x402Version: 2,
      accepted: requirements,
      payload: await client.createPayload(requirements),
    }
    expect(await official.verify(payment as never, requirements as never)).toMatchObject({
      isValid: true,
      payer: account.address,
    })
  })

  test('the official client → our facilitator verifies and settles it', async () => {
    const account = harness.payers(BASE)[1]
    if (!account) {
      throw new Error('no payer')
    }
    const requirements = requirementsFor(scheme)
    const created = await new OfficialClient(account).createPaymentPayload(2, requirements as never)
    const payment: PaymentPayload = { x402Version: 2, accepted: requirements, payload: created.payload }
    const facilitator = ours[scheme]
    expect(facilitator.canHandle(payment, requirements)).toBe(true)
    expect(await facilitator.verify(payment, requirements)).toEqual({ isValid: true, payer: account.address })
    const settled = await facilitator.settle(payment, requirements, {
      recordBroadcast: async () => undefined,
    })
    expect(settled).toMatchObject({ success: true, payer: account.address })
  })
})
