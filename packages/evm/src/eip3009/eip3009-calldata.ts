import type { Address, Hex } from 'viem'
import { eip3009Abi } from '../abis.js'
import { createCallEncoder } from '../rpc/call-encoder.js'
import type { Eip3009Message } from '../signatures/typed-data.js'

const [transferVrsItem, transferBytesItem, authorizationStateItem] = eip3009Abi
const transferVrs = createCallEncoder(transferVrsItem)
const transferBytes = createCallEncoder(transferBytesItem)
const authorizationState = createCallEncoder(authorizationStateItem)

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
    return transferVrs([
      ...args,
      v < 27 ? v + 27 : v,
      `0x${signature.slice(2, 66)}`,
      `0x${signature.slice(66, 130)}`,
    ])
  }
  return transferBytes([...args, signature])
}

/** Calldata of `authorizationState(authorizer, nonce)`. */
export function encodeAuthorizationState(authorizer: Address, nonce: Hex): Hex {
  return authorizationState([authorizer, nonce])
}
