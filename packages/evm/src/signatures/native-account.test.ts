import { parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { nativePrivateKeyToAccount } from './native-account.js'
import { transferWithAuthorizationTypes } from './typed-data.js'

// Two fixed keys (one whose signatures need yParity 1 for some messages): libsecp256k1 and viem's
// noble must give the same bytes, since both are RFC 6979 deterministic with a low s.
const keys = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
] as const

describe('nativePrivateKeyToAccount', () => {
  for (const key of keys) {
    const viemAccount = privateKeyToAccount(key)
    const native = nativePrivateKeyToAccount(key)

    test(`default: same address and public key as viem (${key.slice(0, 10)}…)`, () => {
      expect(native.address).toBe(viemAccount.address)
      expect(native.publicKey).toBe(viemAccount.publicKey)
    })

    test(`behavior: EIP-1559 and legacy transactions are signed to viem's bytes (${key.slice(0, 10)}…)`, async () => {
      for (let nonce = 0; nonce < 8; nonce++) {
        const eip1559 = {
          chainId: 84532,
          type: 'eip1559' as const,
          to: '0x000000000000000000000000000000000000b0b0' as const,
          data: '0xa9059cbb' as const,
          gas: 90_000n,
          value: 0n,
          nonce,
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 1_000_000n,
        }
        expect(await native.signTransaction(eip1559)).toBe(await viemAccount.signTransaction(eip1559))
        const legacy = {
          chainId: 1,
          type: 'legacy' as const,
          to: eip1559.to,
          value: parseEther('1'),
          nonce,
          gasPrice: 1n,
          gas: 21_000n,
        }
        expect(await native.signTransaction(legacy)).toBe(await viemAccount.signTransaction(legacy))
      }
    })

    test(`behavior: typed data and messages are signed to viem's bytes (${key.slice(0, 10)}…)`, async () => {
      for (let i = 0; i < 8; i++) {
        const typedData = {
          domain: {
            name: 'USD Coin',
            version: '2',
            chainId: 84532,
            verifyingContract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as const,
          },
          types: transferWithAuthorizationTypes,
          primaryType: 'TransferWithAuthorization' as const,
          message: {
            from: viemAccount.address,
            to: '0x000000000000000000000000000000000000b0b0' as const,
            value: BigInt(i + 1),
            validAfter: 0n,
            validBefore: 2_000_000_000n,
            nonce: `0x${i.toString(16).padStart(64, '0')}` as const,
          },
        }
        expect(await native.signTypedData(typedData)).toBe(await viemAccount.signTypedData(typedData))
        expect(await native.signMessage({ message: `payout ${i}` })).toBe(
          await viemAccount.signMessage({ message: `payout ${i}` }),
        )
      }
    })
  }
})
