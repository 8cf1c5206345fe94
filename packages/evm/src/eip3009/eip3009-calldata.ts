import { type Address, encodeFunctionData, type Hex } from 'viem'
import { eip3009Abi } from '../abis.js'
import type { Eip3009Message } from '../shared/typed-data.js'

const [transferVrs, transferBytes, authorizationState] = eip3009Abi

/** Calldata of `transferWithAuthorization`: the `(v, r, s)` overload for 65-byte signatures, else `bytes`. */
export function encodeTransferWithAuthorization(message: Eip3009Message, signature: Hex): Hex {
  const args = [
    message.from,
    message.to,
    message.value,
    message.validAfter,
    message.validBefore,
    message.nonce,
  ] as const
  if (signature.length === 132) {
    const v = Number.parseInt(signature.slice(130, 132), 16)
    return encodeFunctionData({
      abi: [transferVrs],
      args: [...args, v < 27 ? v + 27 : v, `0x${signature.slice(2, 66)}`, `0x${signature.slice(66, 130)}`],
    })
  }
  return encodeFunctionData({ abi: [transferBytes], args: [...args, signature] })
}

/** Calldata of `authorizationState(authorizer, nonce)`. */
export function encodeAuthorizationState(authorizer: Address, nonce: Hex): Hex {
  return encodeFunctionData({ abi: [authorizationState], args: [authorizer, nonce] })
}
