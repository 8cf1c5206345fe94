import { type Address, erc20Abi, getAbiItem, type Hex } from 'viem'
import { erc1271Abi } from '../abis.js'
import { createCallEncoder } from './call-encoder.js'

const balanceOf = createCallEncoder(getAbiItem({ abi: erc20Abi, name: 'balanceOf' }))
const allowance = createCallEncoder(getAbiItem({ abi: erc20Abi, name: 'allowance' }))
const isValidSignature = createCallEncoder(getAbiItem({ abi: erc1271Abi, name: 'isValidSignature' }))

/** Calldata of `balanceOf(account)`. */
export function encodeBalanceOf(account: Address): Hex {
  return balanceOf([account])
}

/** Calldata of `allowance(owner, spender)`. */
export function encodeAllowance(owner: Address, spender: Address): Hex {
  return allowance([owner, spender])
}

/** Calldata of ERC-1271 `isValidSignature(digest, signature)`. */
export function encodeIsValidSignature(digest: Hex, signature: Hex): Hex {
  return isValidSignature([digest, signature])
}
