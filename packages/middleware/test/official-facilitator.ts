import { toViemChain } from '@tollgate/devnet'
import { x402Facilitator } from '@x402/core/facilitator'
import type { FacilitatorClient } from '@x402/core/server'
import type { Network } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ExactEvmFacilitator } from '@x402/evm/exact/facilitator'
import { createWalletClient, http, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { DevnetStack } from './devnet-stack.js'

/**
 * The official reference facilitator (@x402/core + @x402/evm exact) in process on one devnet network,
 * paying gas from the devnet's first relayer; `config` goes to its exact EVM scheme.
 */
export function createOfficialFacilitator(
  stack: DevnetStack,
  network: string,
  config: { eip6492AllowedFactories?: string[] } = {},
): FacilitatorClient {
  const net = stack.devnet.networks[network]
  const relayerKey = stack.devnet.wallets.find(
    (w) => w.network === network && w.role === 'relayer',
  )?.privateKey
  if (!net || !relayerKey) {
    throw new Error(`no ${network}`)
  }
  const account = privateKeyToAccount(relayerKey as `0x${string}`)
  const wallet = createWalletClient({
    account,
    chain: toViemChain(net),
    transport: http(),
    pollingInterval: 50,
  }).extend(publicActions)
  // The reference signer is typed loosely (abi: unknown[]); viem's typed methods take the same objects.
  type Loose<F extends (args: never) => unknown> = Parameters<F>[0]
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => wallet.readContract(args as Loose<typeof wallet.readContract>),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Loose<typeof wallet.verifyTypedData>),
    writeContract: (args) => wallet.writeContract(args as Loose<typeof wallet.writeContract>),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    getCode: (args) => wallet.getCode(args),
  })
  const facilitator = new x402Facilitator().register(
    network as `${string}:${string}`,
    new ExactEvmFacilitator(signer, config),
  )
  // The resource server takes a FacilitatorClient; the in-process facilitator answers /supported synchronously.
  const client: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => {
      const supported = facilitator.getSupported()
      return {
        ...supported,
        kinds: supported.kinds.map((kind) => ({ ...kind, network: kind.network as Network })),
      }
    },
  }
  return client
}
