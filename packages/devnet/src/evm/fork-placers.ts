import { concat } from 'viem'
import { createDevnetError } from '../errors.js'
import {
  CREATE2_DEPLOYER_ADDRESS,
  MULTICALL3_ADDRESS,
  PERMIT2_ADDRESS,
  PERMIT2_SALT,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
} from './addresses.js'
import { fixtureBytecodes } from './bytecodes.js'
import { deployErc4337Stack } from './erc4337/deploy-erc4337-stack.js'
import { ERC4337_CONTRACTS } from './erc4337/erc4337-contracts.js'
import type { JsonRpc } from './json-rpc.js'
import { getPermit2CreationCode } from './permit2-creation-code.js'

/**
 * What a placer gets on a fork: the fork's JSON-RPC (anvil's cheat methods work), its URL (for
 * libraries that want their own client) and `sender`, an account that is unlocked on the fork and
 * holds gas, for contracts that must be deployed by a transaction (their constructor must run).
 */
export type EvmPlacerContext = {
  network: string
  chainId: number
  rpcUrl: string
  rpc: JsonRpc
  sender: `0x${string}`
}

/** One contract a placer looked at: `found` (the fork already had code there) or `placed` (we put it there). */
export type PlacedContract = { name: string; address: `0x${string}`; status: 'found' | 'placed' }

/**
 * Ensures a set of contracts exists at its canonical addresses on a fork, leaving alone what the
 * fork already has. Idempotent: running it twice places nothing the second time. Placers run in
 * list order, so one may rely on an earlier one (Permit2 on the CREATE2 deployer).
 */
export type EvmPlacer = {
  name: string
  place(context: EvmPlacerContext): Promise<PlacedContract[]>
}

/** Whether `address` has code on the chain behind `rpc`. */
export async function hasCode(rpc: JsonRpc, address: `0x${string}`): Promise<boolean> {
  return (await rpc.request<`0x${string}`>('eth_getCode', [address, 'latest'])) !== '0x'
}

// Arachnid's deterministic deployment proxy, runtime code (as in every anvil genesis and on nearly
// every public chain, deployed there by a keyless transaction).
const CREATE2_DEPLOYER_CODE: `0x${string}` =
  '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3'

/** A placer for a contract without constructor state: `anvil_setCode` of its runtime code when missing. */
export function createRuntimeCodePlacer(
  name: string,
  address: `0x${string}`,
  code: `0x${string}`,
): EvmPlacer {
  return {
    name,
    place: async ({ rpc }) => {
      if (await hasCode(rpc, address)) {
        return [{ name, address, status: 'found' }]
      }
      await rpc.request('anvil_setCode', [address, code])
      return [{ name, address, status: 'placed' }]
    },
  }
}

type Receipt = { status: `0x${string}` } | null

// 20 ms apart: ten seconds for a block that anvil mines at once.
const RECEIPT_ATTEMPTS = 500

/**
 * Sends a transaction from an account the fork has unlocked (or impersonates) and waits for its
 * receipt; throws when it reverted. Mining must be automatic (a fork starts that way).
 */
export async function sendForkTransaction(
  rpc: JsonRpc,
  network: string,
  tx: { from: `0x${string}`; to: `0x${string}`; data: `0x${string}` },
): Promise<void> {
  const hash = await rpc.request<`0x${string}`>('eth_sendTransaction', [tx])
  // Anvil answers once the transaction is in its pool; the automatic block follows a moment later.
  for (let attempt = 0; attempt < RECEIPT_ATTEMPTS; attempt++) {
    const receipt = await rpc.request<Receipt>('eth_getTransactionReceipt', [hash])
    if (receipt) {
      if (receipt.status !== '0x1') {
        throw createDevnetError(`${network}: transaction ${hash} to ${tx.to} reverted on the fork`, {
          network,
        })
      }
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw createDevnetError(`${network}: transaction ${hash} to ${tx.to} was not mined on the fork`, {
    network,
  })
}

/** Arachnid's CREATE2 deployer, which the Permit2 placer deploys through. */
export const create2DeployerPlacer = createRuntimeCodePlacer(
  'Create2Deployer',
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE,
)

/**
 * Uniswap's Permit2, deployed when missing exactly as on public chains: CREATE2 through the
 * deterministic deployer with Uniswap's salt and init code, so its constructor caches the fork's
 * chain id in the domain separator.
 */
export const permit2Placer: EvmPlacer = {
  name: 'Permit2',
  place: async ({ rpc, network, sender }) => {
    const found = { name: 'Permit2', address: PERMIT2_ADDRESS }
    if (await hasCode(rpc, PERMIT2_ADDRESS)) {
      return [{ ...found, status: 'found' }]
    }
    const data = concat([PERMIT2_SALT, getPermit2CreationCode()])
    await sendForkTransaction(rpc, network, { from: sender, to: CREATE2_DEPLOYER_ADDRESS, data })
    if (!(await hasCode(rpc, PERMIT2_ADDRESS))) {
      throw createDevnetError(`${network}: Permit2 did not land at ${PERMIT2_ADDRESS}`, { network })
    }
    return [{ ...found, status: 'placed' }]
  },
}

/** The x402 exact Permit2 proxy (our build; Permit2's address is a constant in its code). */
export const x402ExactPermit2ProxyPlacer = createRuntimeCodePlacer(
  'X402ExactPermit2Proxy',
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  fixtureBytecodes.X402ExactPermit2Proxy.deployedBytecode,
)

/** Multicall3 (our build, canonical ABI): viem's `multicall` and the facilitator's diagnostics use it. */
export const multicall3Placer = createRuntimeCodePlacer(
  'Multicall3',
  MULTICALL3_ADDRESS,
  fixtureBytecodes.Multicall3.deployedBytecode,
)

/**
 * EntryPoint v0.7 and the Safe 1.4.1 / Safe4337Module stack (docs/smart-accounts.md) through their
 * publishers' CREATE2 deployers, so smart-account payers work on a fork with their defaults.
 */
export const erc4337Placer: EvmPlacer = {
  name: 'ERC-4337',
  place: async ({ rpc, network, sender }) => {
    const { placed } = await deployErc4337Stack(rpc, { network, from: sender })
    return ERC4337_CONTRACTS.map((c) => ({
      name: c.name,
      address: c.address,
      status: placed.includes(c.name) ? 'placed' : 'found',
    }))
  },
}

/**
 * What a fork gets besides its own contracts, in order: the CREATE2 deployer, Permit2, the x402 exact
 * Permit2 proxy, Multicall3 and the ERC-4337 stack, each only where the forked chain lacks it. Append
 * placers with `startEvmDevnet({ placers: [...DEFAULT_FORK_PLACERS, mine] })`.
 */
export const DEFAULT_FORK_PLACERS: readonly EvmPlacer[] = [
  create2DeployerPlacer,
  permit2Placer,
  x402ExactPermit2ProxyPlacer,
  multicall3Placer,
  erc4337Placer,
]
