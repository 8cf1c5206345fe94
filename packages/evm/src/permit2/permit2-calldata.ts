import { type Address, getAbiItem, type Hex } from 'viem'
import { permit2Abi, x402ExactPermit2ProxyAbi } from '../abis.js'
import { createCallEncoder } from '../rpc/call-encoder.js'
import type { Permit2Message } from '../signatures/typed-data.js'

const proxySettle = createCallEncoder(getAbiItem({ abi: x402ExactPermit2ProxyAbi, name: 'settle' }))
const proxyPermit2 = createCallEncoder(getAbiItem({ abi: x402ExactPermit2ProxyAbi, name: 'PERMIT2' }))
const nonceBitmap = createCallEncoder(getAbiItem({ abi: permit2Abi, name: 'nonceBitmap' }))

/** Calldata of the x402 exact proxy's `settle(permit, owner, witness, signature)`. */
export function encodeProxySettle(owner: Address, message: Permit2Message, signature: Hex): Hex {
  return proxySettle([
    {
      permitted: { token: message.token, amount: message.amount },
      nonce: message.nonce,
      deadline: message.deadline,
    },
    owner,
    { to: message.to, validAfter: message.validAfter },
    signature,
  ])
}

/** Calldata of the proxy's `PERMIT2()` getter (answers only where the proxy is deployed). */
export function encodeProxyPermit2(): Hex {
  return proxyPermit2([])
}

/** Calldata of Permit2's `nonceBitmap(owner, wordPos)` for the word holding `nonce`. */
export function encodeNonceBitmap(owner: Address, nonce: bigint): Hex {
  return nonceBitmap([owner, nonce >> 8n])
}

/** Whether `nonce`'s bit is set in the bitmap word Permit2 returned (the nonce was used). */
export function isNonceUsed(bitmap: bigint, nonce: bigint): boolean {
  return ((bitmap >> (nonce & 0xffn)) & 1n) === 1n
}
