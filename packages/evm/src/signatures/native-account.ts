import { createRequire } from 'node:module'
import {
  type Hex,
  hashMessage,
  hashTypedData,
  hexToBytes,
  keccak256,
  numberToHex,
  serializeSignature,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem'
import { type LocalAccount, privateKeyToAccount } from 'viem/accounts'

// Signing is the relayer's and the crypto sender's hot path (two signatures per crypto payout: the
// treasury's EIP-3009 authorization and the fee payer's transaction). libsecp256k1 through the
// `secp256k1` addon (prebuilt binaries; the package falls back to its own pure-JS code when the
// addon cannot load) signs several times faster than viem's pure-JS noble. Both are RFC 6979
// deterministic with a low `s`, so the signatures are the same bytes (native-account.test.ts).
type Secp256k1 = {
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number }
}
// Loaded on first use, like recover-signer.ts: importing the package loads no addon.
let secp256k1: Secp256k1 | undefined
const loadSecp256k1 = (): Secp256k1 =>
  (secp256k1 ??= createRequire(import.meta.url)('secp256k1') as Secp256k1)

const toHex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes).toString('hex')}`

/**
 * viem's `privateKeyToAccount` with its signing done by libsecp256k1: the same `LocalAccount`
 * (address, public key, every sign method), the same signatures, less CPU per signature.
 */
export function nativePrivateKeyToAccount(privateKey: Hex): LocalAccount {
  const account = privateKeyToAccount(privateKey)
  const key = hexToBytes(privateKey)
  const signHash = (hash: Hex) => {
    const { signature, recid } = loadSecp256k1().ecdsaSign(hexToBytes(hash), key)
    return {
      r: numberToHex(BigInt(toHex(signature.subarray(0, 32))), { size: 32 }),
      s: numberToHex(BigInt(toHex(signature.subarray(32, 64))), { size: 32 }),
      yParity: recid,
      v: recid === 0 ? 27n : 28n,
    }
  }
  const sign = async ({ hash }: { hash: Hex }) => serializeSignature(signHash(hash))
  return {
    ...account,
    sign,
    signMessage: async ({ message }) => sign({ hash: hashMessage(message) }),
    signTypedData: async (typedData) => sign({ hash: hashTypedData(typedData) }),
    signTransaction: async (transaction, options) => {
      const serializer = options?.serializer ?? serializeTransaction
      // As viem does: an EIP-4844 transaction is signed without its sidecars.
      const signable =
        transaction.type === 'eip4844'
          ? ({ ...transaction, sidecars: false } as TransactionSerializable)
          : transaction
      const hash = keccak256(await serializer(signable))
      return serializer(transaction, signHash(hash)) as never
    },
  }
}
