import { createSafeAccount } from '@tollgate/agent'
import type { Devnet } from '@tollgate/devnet'
import { keccak256, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** A counterfactual smart account of the sandbox manifest: its owner key pays from it (docs/smart-accounts.md). */
export type SandboxSmartAccount = {
  network: string
  type: 'safe'
  address: string
  ownerAddress: string
  ownerPrivateKey: string
}

/** The owner of the sandbox's Safes: a fixed key (the sandbox is local), so the address stays the same across runs. */
export const SANDBOX_SAFE_OWNER_KEY = keccak256(toHex('tollgate:sandbox:safe-owner'))

/** What each sandbox Safe holds of every token of its network, in whole tokens. */
const SAFE_TOKENS = 1_000n

/**
 * One Safe 1.4.1 per EVM network of the devnet, owned by {@link SANDBOX_SAFE_OWNER_KEY} and left
 * undeployed (its first payment is ERC-6492-signed; the facilitator deploys it), funded with every
 * token of the network. It needs no gas: the facilitator pays for the deployment and the transfer.
 */
export async function createSandboxSafes(devnet: Devnet): Promise<SandboxSmartAccount[]> {
  const owner = privateKeyToAccount(SANDBOX_SAFE_OWNER_KEY)
  const networks = Object.values(devnet.networks).filter((network) => network.kind === 'evm')
  return Promise.all(
    networks.map(async (network): Promise<SandboxSmartAccount> => {
      const safe = await createSafeAccount({ owner, network: network.network, rpcUrl: network.rpcUrl })
      for (const asset of Object.values(network.assets)) {
        const amount = SAFE_TOKENS * 10n ** BigInt(asset.decimals)
        await devnet.fund({ network: network.network, address: safe.address, asset: asset.symbol, amount })
      }
      return {
        network: network.network,
        type: 'safe',
        address: safe.address,
        ownerAddress: owner.address,
        ownerPrivateKey: SANDBOX_SAFE_OWNER_KEY,
      }
    }),
  )
}
