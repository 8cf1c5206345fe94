import { type Address, encodeFunctionData, type Hex } from 'viem'
import { erc20Abi, erc1271Abi } from '../abis.js'

/** Calldata of `balanceOf(account)`. */
export function encodeBalanceOf(account: Address): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [account] })
}

/** Calldata of `allowance(owner, spender)`. */
export function encodeAllowance(owner: Address, spender: Address): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [owner, spender] })
}

/** Calldata of ERC-1271 `isValidSignature(digest, signature)`. */
export function encodeIsValidSignature(digest: Hex, signature: Hex): Hex {
  return encodeFunctionData({ abi: erc1271Abi, functionName: 'isValidSignature', args: [digest, signature] })
}
