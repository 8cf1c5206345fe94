import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit'
import { nativePrivateKeyToAccount } from '@tollgate/evm'
import type { LocalAccount } from 'viem/accounts'
import type { KeyEnvironment } from '../../http/app-env.js'
import { deriveDepositKey, toHexKey } from './derive-deposit-key.js'

/** How many fee-payer keys the EVM pool has per environment. */
export const feePayerCount = 4

/** EVM keys given by configuration (production: `TOLLGATE_TREASURY_KEY`, `TOLLGATE_FEE_PAYER_KEYS`) instead of derived ones. */
export type OperatingKeyOverrides = Partial<
  Record<KeyEnvironment, { treasury: `0x${string}`; feePayers: `0x${string}`[] }>
>

/**
 * The rails' own keys, derived from the master seed on branches of their own (treasury: purpose 8,
 * fee payers: purpose 9; docs/rails.md "Chains"): one EVM treasury and a pool of fee payers per
 * environment, the same address on every EVM chain, unless `given` has keys for the environment
 * (production configuration); on Solana one treasury per environment that also pays every fee
 * (sends, sweeps, recipients' token-account rent). EVM keys sign through libsecp256k1
 * (`nativePrivateKeyToAccount`). A production deployment would put these behind a KMS signer with
 * the same `LocalAccount` shape.
 */
export function createOperatingKeys(seed: Uint8Array, given: OperatingKeyOverrides = {}) {
  const cache = new Map<KeyEnvironment, { treasury: LocalAccount; feePayers: LocalAccount[] }>()
  const solanaCache = new Map<KeyEnvironment, { address: string; signer: () => Promise<KeyPairSigner> }>()
  return {
    solana: (environment: KeyEnvironment) => {
      let keys = solanaCache.get(environment)
      if (!keys) {
        const key = deriveDepositKey(seed, { family: 'solana', environment, purpose: 'treasury' }, 0)
        let signer: Promise<KeyPairSigner> | undefined
        keys = {
          address: key.address,
          signer: () => {
            signer ??= createKeyPairSignerFromPrivateKeyBytes(key.privateKey)
            return signer
          },
        }
        solanaCache.set(environment, keys)
      }
      return keys
    },
    evm: (environment: KeyEnvironment) => {
      let keys = cache.get(environment)
      const override = given[environment]
      if (!keys && override) {
        keys = {
          treasury: nativePrivateKeyToAccount(override.treasury),
          feePayers: override.feePayers.map((key) => nativePrivateKeyToAccount(key)),
        }
        cache.set(environment, keys)
      }
      if (!keys) {
        const account = (purpose: 'treasury' | 'fee_payer', index: number) =>
          nativePrivateKeyToAccount(
            toHexKey(deriveDepositKey(seed, { family: 'evm', environment, purpose }, index)),
          )
        keys = {
          treasury: account('treasury', 0),
          feePayers: Array.from({ length: feePayerCount }, (_, i) => account('fee_payer', i)),
        }
        cache.set(environment, keys)
      }
      return keys
    },
  }
}
