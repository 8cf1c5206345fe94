import { type Address, encodeFunctionData, erc20Abi, type Hash, type Hex, maxUint256 } from 'viem'
import { PERMIT2_ADDRESS } from '../constants.js'

/** What {@link approvePermit2} needs: something that sends a transaction from the payer (a viem WalletClient). */
export type ApprovePermit2Parameters = {
  wallet: { sendTransaction(request: { to: Address; data: Hex }): Promise<Hash> }
  token: Address
  /** Allowance in atomic units; default max uint256 (as the reference client helper). */
  amount?: bigint
}

/**
 * Sends the payer's one-time `token.approve(Permit2, amount)` (the payer pays this gas) and
 * returns the transaction hash. Needed once per token before paying with the `permit2` scheme.
 */
export async function approvePermit2(parameters: ApprovePermit2Parameters): Promise<Hash> {
  const data = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, parameters.amount ?? maxUint256],
  })
  return parameters.wallet.sendTransaction({ to: parameters.token, data })
}
