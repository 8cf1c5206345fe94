import { type Devnet, SOLANA_DEVNET_NETWORK } from '@tollgate/devnet'
import { createJsonRpc } from '../rails/chains/json-rpc.js'
import { getAssociatedTokenAccount } from '../rails/chains/solana-watcher.js'
import type { ChainAsset, Rails } from '../rails/types.js'

/** Gives the rails' Solana treasury 1,000 SOL (its fees and rent) and `usdc` atomic USDC on the devnet. */
export async function fundSolanaTreasury(
  devnet: Pick<Devnet, 'fund'>,
  rails: Rails,
  usdc: bigint,
): Promise<string> {
  const treasury = rails.crypto.getTreasury('test', 'solana')
  if (!treasury) {
    throw new Error('no Solana treasury')
  }
  await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: treasury.address, amount: 10n ** 12n })
  await devnet.fund({
    network: SOLANA_DEVNET_NETWORK,
    address: treasury.address,
    asset: 'USDC',
    amount: usdc,
  })
  return treasury.address
}

/** The balance of `owner`'s associated token account of `asset` on the devnet (0 when it has none). */
export async function readSolanaTokenBalance(
  devnet: Pick<Devnet, 'networks'>,
  owner: string,
  asset: ChainAsset,
): Promise<bigint> {
  const rpc = createJsonRpc(devnet.networks[SOLANA_DEVNET_NETWORK]?.rpcUrl ?? '', {
    network: SOLANA_DEVNET_NETWORK,
  })
  const info = (await rpc.request('getAccountInfo', [
    await getAssociatedTokenAccount(owner, asset),
    { encoding: 'base64' },
  ])) as { value: { data: [string, string] } | null }
  return info.value ? Buffer.from(info.value.data[0], 'base64').readBigUInt64LE(64) : 0n
}
