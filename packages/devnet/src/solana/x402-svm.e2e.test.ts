import {
  address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Encoder,
} from '@solana/kit'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { type FacilitatorRpcClient, toFacilitatorSvmSigner } from '@x402/svm'
import { ExactSvmScheme as ExactSvmClient } from '@x402/svm/exact/client'
import { ExactSvmScheme as ExactSvmFacilitator } from '@x402/svm/exact/facilitator'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SOLANA_DEVNET_NETWORK, type SolanaDevnet, startSolanaDevnet } from './start-solana-devnet.js'

let devnet: SolanaDevnet

beforeAll(async () => {
  devnet = await startSolanaDevnet({ payers: 1, relayers: 1 })
})

afterAll(async () => {
  await devnet?.stop()
})

describe('official @x402/svm against the devnet', () => {
  test('behavior: the client pays and the facilitator verifies and settles', async () => {
    const network = devnet.networks[SOLANA_DEVNET_NETWORK]
    const url = network?.rpcUrl ?? ''
    const usdc = address(network?.assets.USDC?.address ?? '')
    const keyOf = (role: string) =>
      getBase58Encoder().encode(devnet.wallets.find((w) => w.role === role)?.privateKey ?? '')
    const payer = await createKeyPairSignerFromBytes(keyOf('payer'))
    const relayer = await createKeyPairSignerFromBytes(keyOf('relayer'))
    const payTo = (await generateKeyPairSigner()).address
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: payTo, asset: 'USDC', amount: 0n })

    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: SOLANA_DEVNET_NETWORK,
      asset: usdc,
      amount: '2500',
      payTo,
      maxTimeoutSeconds: 60,
      extra: { feePayer: relayer.address },
    }
    const client = new ExactSvmClient(payer, { rpcUrl: url })
    const partial = await client.createPaymentPayload(2, requirements)
    const payload: PaymentPayload = {
      ...partial,
      accepted: requirements,
      resource: { url: 'http://example.test/paid', description: '', mimeType: '' },
    }
    const facilitator = new ExactSvmFacilitator(
      toFacilitatorSvmSigner(relayer, {
        // A per-network map: a bare kit RPC proxy would be mistaken for one (any property looks like a network).
        // @x402/svm is typed against an older @solana/kit; the RPC object is the same at runtime.
        [SOLANA_DEVNET_NETWORK]: createSolanaRpc(url) as unknown as FacilitatorRpcClient,
      }),
    )
    const verified = await facilitator.verify(payload, requirements)
    expect(verified).toMatchObject({ isValid: true, payer: payer.address })
    const settled = await facilitator.settle(payload, requirements)
    expect(settled).toMatchObject({ success: true, network: SOLANA_DEVNET_NETWORK })
    const [ata] = await findAssociatedTokenPda({
      owner: payTo,
      mint: usdc,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    expect((await createSolanaRpc(url).getTokenAccountBalance(ata).send()).value.amount).toBe('2500')
  })
})
