import { LRUCache } from 'lru-cache'
import { type Address, type Hex, isAddress, keccak256, stringToBytes } from 'viem'
import { PERMIT2_ADDRESS } from '../constants.js'
import { keccakBytes, keccakText, toTypedDataDigest, writeHex, writeUint256 } from '../rpc/abi-words.js'

/** EIP-712 types of an EIP-3009 `TransferWithAuthorization` (for signing with viem). */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** EIP-712 types of a Permit2 `PermitWitnessTransferFrom` with x402's exact `Witness(to, validAfter)`. */
export const permitWitnessTransferFromTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'Witness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Witness: [
    { name: 'to', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const

/** An EIP-3009 authorization with numeric fields as bigint (parsed from the wire payload). */
export type Eip3009Message = {
  from: Address
  to: Address
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: Hex
}

/** A Permit2 exact-witness authorization with numeric fields as bigint. */
export type Permit2Message = {
  token: Address
  amount: bigint
  spender: Address
  nonce: bigint
  deadline: bigint
  to: Address
  validAfter: bigint
}

// Hashed once at import with viem's pure-JS keccak: the `keccak` addon loads on the first digest,
// not when a payer or merchant imports the package (docs/packages.md).
const typeHash = (type: string): Uint8Array => keccak256(stringToBytes(type), 'bytes')

const DOMAIN_TYPEHASH = typeHash(
  'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)',
)
const DOMAIN_NO_VERSION_TYPEHASH = typeHash(
  'EIP712Domain(string name,uint256 chainId,address verifyingContract)',
)
const TRANSFER_WITH_AUTHORIZATION_TYPEHASH = typeHash(
  'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)',
)
const PERMIT_WITNESS_TYPEHASH = typeHash(
  'PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)',
)
const TOKEN_PERMISSIONS_TYPEHASH = typeHash('TokenPermissions(address token,uint256 amount)')
const WITNESS_TYPEHASH = typeHash('Witness(address to,uint256 validAfter)')

// Keyed by the token domain a request names: bounded, since requests choose it.
const domainSeparators = new LRUCache<string, Uint8Array>({ max: 1_000 })

/** The EIP-712 domain separator of a token (`name`, `version`, chain, contract), cached. */
export function getDomainSeparator(domain: {
  name: string
  version?: string
  chainId: number
  verifyingContract: Address
}): Uint8Array {
  const key = `${domain.chainId}:${domain.verifyingContract.toLowerCase()}:${domain.name}:${domain.version ?? ''}`
  let separator = domainSeparators.get(key)
  if (!separator) {
    const words = domain.version === undefined ? 4 : 5
    const buffer = new Uint8Array(32 * words)
    buffer.set(domain.version === undefined ? DOMAIN_NO_VERSION_TYPEHASH : DOMAIN_TYPEHASH, 0)
    buffer.set(keccakText(domain.name), 32)
    let offset = 64
    if (domain.version !== undefined) {
      buffer.set(keccakText(domain.version), offset)
      offset += 32
    }
    writeUint256(buffer, offset, BigInt(domain.chainId))
    writeHex(buffer, offset + 32, domain.verifyingContract, 32)
    separator = keccakBytes(buffer)
    domainSeparators.set(key, separator)
  }
  return separator
}

/** The EIP-712 digest an EIP-3009 `TransferWithAuthorization` signature signs. */
export function getEip3009Digest(
  domain: { name: string; version: string; chainId: number; verifyingContract: Address },
  message: Eip3009Message,
): Uint8Array {
  const buffer = new Uint8Array(32 * 7)
  buffer.set(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, 0)
  writeHex(buffer, 32, message.from, 32)
  writeHex(buffer, 64, message.to, 32)
  writeUint256(buffer, 96, message.value)
  writeUint256(buffer, 128, message.validAfter)
  writeUint256(buffer, 160, message.validBefore)
  writeHex(buffer, 192, message.nonce, 32)
  return toTypedDataDigest(getDomainSeparator(domain), keccakBytes(buffer))
}

/** The EIP-712 digest a Permit2 `PermitWitnessTransferFrom` (x402 exact witness) signature signs. */
export function getPermit2Digest(chainId: number, message: Permit2Message): Uint8Array {
  const permissions = new Uint8Array(32 * 3)
  permissions.set(TOKEN_PERMISSIONS_TYPEHASH, 0)
  writeHex(permissions, 32, message.token, 32)
  writeUint256(permissions, 64, message.amount)
  const witness = new Uint8Array(32 * 3)
  witness.set(WITNESS_TYPEHASH, 0)
  writeHex(witness, 32, message.to, 32)
  writeUint256(witness, 64, message.validAfter)
  const struct = new Uint8Array(32 * 6)
  struct.set(PERMIT_WITNESS_TYPEHASH, 0)
  struct.set(keccakBytes(permissions), 32)
  writeHex(struct, 64, message.spender, 32)
  writeUint256(struct, 96, message.nonce)
  writeUint256(struct, 128, message.deadline)
  struct.set(keccakBytes(witness), 160)
  const separator = getDomainSeparator({ name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS })
  return toTypedDataDigest(separator, keccakBytes(struct))
}

/** Whether `value` is a 0x-prefixed 20-byte address (any case; checksum not enforced). */
export function isHexAddress(value: string): value is Address {
  return isAddress(value, { strict: false })
}
