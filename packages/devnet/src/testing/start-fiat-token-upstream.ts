import { encodeFunctionData } from 'viem'
import { fiatTokenLikeAbi } from '../evm/abis.js'
import { type AnvilProcess, spawnAnvil } from '../evm/anvil-process.js'
import { fixtureBytecodes } from '../evm/bytecodes.js'
import { getAnvilAccounts } from '../evm/dev-accounts.js'
import { sendForkTransaction } from '../evm/fork-placers.js'
import { createJsonRpc, type JsonRpc } from '../evm/json-rpc.js'

/** Parameters of {@link startFiatTokenUpstream}: the chain, where the token sits and its EIP-712 domain. */
export type StartFiatTokenUpstreamParameters = {
  network: `eip155:${number}`
  chainId: number
  token: { address: `0x${string}`; name: string; symbol: string; version: string; decimals: number }
  /** Holders minted a balance (atomic units) on the upstream; `blacklisted` ones are blacklisted after. */
  holders?: { address: `0x${string}`; amount: bigint; blacklisted?: boolean }[]
}

/** A bare anvil playing a real chain whose USDC has FiatToken's layout; `owner` owns the token. */
export type FiatTokenUpstream = AnvilProcess & { rpc: JsonRpc; owner: `0x${string}` }

/**
 * Starts a plain anvil (no Permit2, no x402 proxy, no Multicall3: a fork of it must place them) with
 * {@link fiatTokenLikeAbi FiatTokenLike} at `token.address`, for fork tests offline.
 */
export async function startFiatTokenUpstream(
  parameters: StartFiatTokenUpstreamParameters,
): Promise<FiatTokenUpstream> {
  const anvil = await spawnAnvil({ chainId: parameters.chainId, accounts: 1, network: parameters.network })
  const rpc = createJsonRpc(anvil.rpcUrl, parameters.network)
  const [owner] = getAnvilAccounts(1)
  try {
    if (!owner) {
      throw new Error('no anvil account')
    }
    const { token, network } = parameters
    const send = (data: `0x${string}`) =>
      sendForkTransaction(rpc, network, { from: owner.address, to: token.address, data })
    await rpc.request('anvil_setCode', [token.address, fixtureBytecodes.FiatTokenLike.deployedBytecode])
    await send(
      encodeFunctionData({
        abi: fiatTokenLikeAbi,
        functionName: 'initialize',
        args: [token.name, token.symbol, token.version, token.decimals, owner.address],
      }),
    )
    for (const holder of parameters.holders ?? []) {
      await send(
        encodeFunctionData({
          abi: fiatTokenLikeAbi,
          functionName: 'mint',
          args: [holder.address, holder.amount],
        }),
      )
      if (holder.blacklisted) {
        await send(
          encodeFunctionData({ abi: fiatTokenLikeAbi, functionName: 'blacklist', args: [holder.address] }),
        )
      }
    }
    return { ...anvil, rpc, owner: owner.address }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}
