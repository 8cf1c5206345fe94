import { type Address, encodeFunctionData, type Hex } from 'viem'
import { permit2Abi, x402ExactPermit2ProxyAbi } from '../abis.js'
import type { Permit2Message } from '../shared/typed-data.js'

/** Calldata of the x402 exact proxy's `settle(permit, owner, witness, signature)`. */
export function encodeProxySettle(owner: Address, message: Permit2Message, signature: Hex): Hex {
  return encodeFunctionData({
    abi: x402ExactPermit2ProxyAbi,
    functionName: 'settle',
    args: [
      {
        permitted: { token: message.token, amount: message.amount },
        nonce: message.nonce,
        deadline: message.deadline,
      },
      owner,
      { to: message.to, validAfter: message.validAfter },
      signature,
    ],
  })
}

/** Calldata of the proxy's `PERMIT2()` getter (answers only where the proxy is deployed). */
export function encodeProxyPermit2(): Hex {
  return encodeFunctionData({ abi: x402ExactPermit2ProxyAbi, functionName: 'PERMIT2' })
}

/** Calldata of Permit2's `nonceBitmap(owner, wordPos)` for the word holding `nonce`. */
export function encodeNonceBitmap(owner: Address, nonce: bigint): Hex {
  return encodeFunctionData({ abi: permit2Abi, functionName: 'nonceBitmap', args: [owner, nonce >> 8n] })
}

/** Whether `nonce`'s bit is set in the bitmap word Permit2 returned (the nonce was used). */
export function isNonceUsed(bitmap: bigint, nonce: bigint): boolean {
  return ((bitmap >> (nonce & 0xffn)) & 1n) === 1n
}
