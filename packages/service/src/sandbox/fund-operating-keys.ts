import type { Devnet } from '@tollgate/devnet'
import type { Deps } from '../deps.js'

/**
 * The devnet is fresh at every start: gives the rails' treasury gas and tokens, and its fee payers
 * gas, on every chain `devnet` runs (the sandbox at start; benchmarks that run the rails). Chains are
 * funded in parallel (seven of them), each chain's calls one after another.
 */
export async function fundOperatingKeys(deps: Deps, devnet: Devnet): Promise<void> {
  await Promise.all(
    deps.rails.chains.list('test').map(async (entry) => {
      const network = devnet.networks[entry.network]
      const treasury = deps.rails.crypto.getTreasury('test', entry.chain)
      if (!network || !treasury) {
        return
      }
      // Lamports are u64 (at most ~1.8e19): Solana gets 10^15 (a million SOL), EVM chains 1,000 coins.
      const gas = entry.family === 'solana' ? 10n ** 15n : 10n ** 21n
      await devnet.fund({ network: entry.network, address: treasury.address, amount: gas })
      for (const asset of Object.values(network.assets)) {
        await devnet.fund({
          network: entry.network,
          address: treasury.address,
          asset: asset.symbol,
          amount: 10n ** BigInt(asset.decimals + 7),
        })
      }
      for (const payer of treasury.feePayers) {
        await devnet.fund({ network: entry.network, address: payer, amount: gas })
      }
    }),
  )
}
