import { SAFE_PROXY_FACTORY_ADDRESS } from '@tollgate/core'
import { concat, encodeAbiParameters } from 'viem'
import { CREATE2_DEPLOYER_ADDRESS } from '../addresses.js'
import { erc4337Bytecodes } from './erc4337-bytecodes.js'

/** EntryPoint v0.7, at its address on every public chain. */
export const ENTRY_POINT_V07_ADDRESS = '0x0000000071727De22E5E9d8BAf0edAc6f37da032'

/**
 * Safe's singleton factory: the same runtime code as Arachnid's CREATE2 deployer, at the address Safe
 * deployed its 1.4.1 contracts from (a pre-signed transaction on public chains; `anvil_setCode` here).
 */
export const SAFE_SINGLETON_FACTORY_ADDRESS: `0x${string}` = '0x914d7Fec6aaC8cd542e72Bca78B30650d45643d7'

/** Runtime code of both CREATE2 deployers: calldata = 32-byte salt ++ init code; returns the address. */
export const CREATE2_DEPLOYER_RUNTIME_CODE =
  '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3'

/** Canonical addresses of the Safe 1.4.1 stack with `Safe4337Module` 0.3.0 (permissionless' defaults for EntryPoint v0.7). */
export const SAFE_ADDRESSES = {
  singleton: '0x41675C099F32341bf84BFc5382aF534df5C7461a',
  proxyFactory: SAFE_PROXY_FACTORY_ADDRESS,
  multiSend: '0x38869bf66a61cF6bDB996A6aE40D5853Fd43B526',
  multiSendCallOnly: '0x9641d764fc13c8B624c04430C7356C1C7C8102e2',
  moduleSetup: '0x2dd68b007B46fBe91B9A7c3EDa5A7a1063cB5b47',
  safe4337Module: '0x75cf11467937ce3F2f357CE24ffc3DBF8fD5c226',
} as const

/** One contract of the stack: where it belongs, and the CREATE2 call (deployer, salt, init code) that puts it there. */
export type Erc4337Contract = {
  name: keyof typeof erc4337Bytecodes
  address: `0x${string}`
  deployer: `0x${string}`
  salt: `0x${string}`
  initCode: `0x${string}`
}

const ZERO_SALT = `0x${'00'.repeat(32)}` as const
// The salt eth-infinitism used for EntryPoint v0.7 through Arachnid's deployer.
const ENTRY_POINT_SALT = '0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3'

/**
 * The contracts in deployment order, each with the deployer and salt that its publisher used, so the
 * published creation code lands at the canonical address (checked by `deployErc4337Stack`).
 */
export const ERC4337_CONTRACTS: readonly Erc4337Contract[] = [
  {
    name: 'EntryPoint',
    address: ENTRY_POINT_V07_ADDRESS,
    deployer: CREATE2_DEPLOYER_ADDRESS,
    salt: ENTRY_POINT_SALT,
    initCode: erc4337Bytecodes.EntryPoint,
  },
  ...(
    [
      ['Safe', SAFE_ADDRESSES.singleton],
      ['SafeProxyFactory', SAFE_ADDRESSES.proxyFactory],
      ['MultiSend', SAFE_ADDRESSES.multiSend],
      ['MultiSendCallOnly', SAFE_ADDRESSES.multiSendCallOnly],
    ] as const
  ).map(([name, address]) => ({
    name,
    address,
    deployer: SAFE_SINGLETON_FACTORY_ADDRESS,
    salt: ZERO_SALT,
    initCode: erc4337Bytecodes[name],
  })),
  {
    name: 'SafeModuleSetup',
    address: SAFE_ADDRESSES.moduleSetup,
    deployer: CREATE2_DEPLOYER_ADDRESS,
    salt: ZERO_SALT,
    initCode: erc4337Bytecodes.SafeModuleSetup,
  },
  {
    name: 'Safe4337Module',
    address: SAFE_ADDRESSES.safe4337Module,
    deployer: CREATE2_DEPLOYER_ADDRESS,
    salt: ZERO_SALT,
    // constructor(address entryPoint)
    initCode: concat([
      erc4337Bytecodes.Safe4337Module,
      encodeAbiParameters([{ type: 'address' }], [ENTRY_POINT_V07_ADDRESS]),
    ]),
  },
]
