import {
  type Address,
  createSolanaRpc,
  type GetAccountInfoApi,
  type GetTokenAccountBalanceApi,
  getAddressEncoder,
  getProgramDerivedAddress,
  type Rpc,
} from '@solana/kit'
import { isEvmNetwork, isSolanaNetwork } from '@tollgate/core'
import { createEvmHttpTransport } from '@tollgate/evm'
import { createPublicClient, type Address as EvmAddress, type PublicClient } from 'viem'
import type { BalanceReader } from './types.js'

const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL' as Address
const BALANCE_OF_ABI = [
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const

type SolanaBalanceRpc = Rpc<GetAccountInfoApi & GetTokenAccountBalanceApi>

/**
 * A {@link BalanceReader} over JSON-RPC: ERC-20 `balanceOf` on EVM networks, the owner's associated
 * token account on Solana (a missing account is a zero balance). Networks without an RPC URL answer
 * `undefined` (not checked).
 */
export function createRpcBalanceReader(options: { rpcs: Record<string, string> }): BalanceReader {
  const evmClients = new Map<string, Pick<PublicClient, 'readContract'>>()
  const solanaRpcs = new Map<string, SolanaBalanceRpc>()
  return {
    async getBalance({ network, asset, owner }) {
      const url = options.rpcs[network]
      if (!url) {
        return undefined
      }
      if (isEvmNetwork(network)) {
        let client = evmClients.get(network)
        if (!client) {
          client = createPublicClient({ transport: createEvmHttpTransport(url) })
          evmClients.set(network, client)
        }
        return client.readContract({
          address: asset as EvmAddress,
          abi: BALANCE_OF_ABI,
          functionName: 'balanceOf',
          args: [owner as EvmAddress],
        })
      }
      if (isSolanaNetwork(network)) {
        let rpc = solanaRpcs.get(network)
        if (!rpc) {
          rpc = createSolanaRpc(url)
          solanaRpcs.set(network, rpc)
        }
        return getSplBalance(rpc, asset as Address, owner as Address)
      }
      return undefined
    },
  }
}

async function getSplBalance(
  rpc: SolanaBalanceRpc,
  mint: Address,
  owner: Address,
): Promise<bigint | undefined> {
  const { value: mintAccount } = await rpc.getAccountInfo(mint, { encoding: 'base64' }).send()
  if (!mintAccount) {
    return undefined
  }
  const encoder = getAddressEncoder()
  const [ata] = await getProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM,
    seeds: [encoder.encode(owner), encoder.encode(mintAccount.owner), encoder.encode(mint)],
  })
  const { value: account } = await rpc.getAccountInfo(ata, { encoding: 'base64' }).send()
  if (!account) {
    return 0n
  }
  const { value } = await rpc.getTokenAccountBalance(ata).send()
  return BigInt(value.amount)
}
