import './errors.js'
import { AppError, getEvmChainId } from '@tollgate/core'
import { approvePermit2, createEvmHttpTransport, PERMIT2_ADDRESS } from '@tollgate/evm'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hash,
  type LocalAccount,
  type PublicClient,
} from 'viem'
import type { Permit2Approver } from './types.js'

const ALLOWANCE_ABI = [
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const

/** Parameters of {@link ensurePermit2Approval}. */
export type EnsurePermit2ApprovalParameters = {
  client: Pick<PublicClient, 'readContract' | 'waitForTransactionReceipt'>
  wallet: { sendTransaction(request: { to: Address; data: `0x${string}` }): Promise<Hash> }
  network: string
  owner: Address
  token: Address
  /** The allowance needed, in atomic units. */
  amount: bigint
}

/**
 * Makes sure `owner` has approved Permit2 for at least `amount` of `token`: when the allowance is
 * short it sends the one-time `approve(Permit2, max)` (the payer pays the gas) and waits for it.
 * Returns the approval transaction, or `undefined` when none was needed.
 */
export async function ensurePermit2Approval(
  parameters: EnsurePermit2ApprovalParameters,
): Promise<Hash | undefined> {
  const { client, owner, token, amount, network } = parameters
  const allowance = await client.readContract({
    address: token,
    abi: ALLOWANCE_ABI,
    functionName: 'allowance',
    args: [owner, PERMIT2_ADDRESS],
  })
  if (allowance >= amount) {
    return undefined
  }
  try {
    const hash = await approvePermit2({ wallet: parameters.wallet, token })
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') {
      throw new Error(`approval ${hash} reverted`)
    }
    return hash
  } catch (cause) {
    throw new AppError('permit2_approval_failed', {
      context: { network, token },
      cause,
      message: `could not approve Permit2 for ${token} on ${network}: ${cause instanceof Error ? cause.message : String(cause)}`,
    })
  }
}

/** A {@link Permit2Approver} for `account` over the RPC URLs in `rpcs` (networks without one are skipped). */
export function createPermit2Approver(options: {
  account: LocalAccount
  rpcs: Record<string, string>
  pollingInterval?: number
}): Permit2Approver {
  return async ({ network, token, amount }) => {
    const url = options.rpcs[network]
    if (!url) {
      return
    }
    const chain = defineChain({
      id: getEvmChainId(network),
      name: network,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
    })
    const transport = createEvmHttpTransport(url)
    const pollingInterval = options.pollingInterval ?? 1000
    await ensurePermit2Approval({
      client: createPublicClient({ chain, transport, pollingInterval }),
      wallet: createWalletClient({ account: options.account, chain, transport }),
      network,
      owner: options.account.address,
      token: token as Address,
      amount,
    })
  }
}
