import { concat, numberToHex } from 'viem'
import { createDevnetError } from '../../errors.js'
import { CREATE2_DEPLOYER_ADDRESS } from '../addresses.js'
import type { JsonRpc } from '../json-rpc.js'
import {
  CREATE2_DEPLOYER_RUNTIME_CODE,
  ERC4337_CONTRACTS,
  type Erc4337Contract,
  SAFE_SINGLETON_FACTORY_ADDRESS,
} from './erc4337-contracts.js'

/** Parameters of {@link deployErc4337Stack}: `from` must be an account the node signs for (an anvil dev account). */
export type DeployErc4337StackParameters = { network: string; from: `0x${string}` }

/** What {@link deployErc4337Stack} did: the contracts it placed, and those it found already there. */
export type DeployErc4337StackReturnType = {
  placed: Erc4337Contract['name'][]
  found: Erc4337Contract['name'][]
}

type Receipt = { status: `0x${string}`; transactionHash: `0x${string}` } | null

/**
 * Puts EntryPoint v0.7 and the Safe 1.4.1 + Safe4337Module 0.3.0 stack at their canonical addresses on
 * an anvil node (fresh or forked), idempotently: an address that already holds code is left as it is
 * (a fork of a public chain has them all). Missing contracts are CREATE2-deployed by `from` through the
 * deployer and salt their publisher used, so they run the constructor (immutables, EntryPoint's
 * SenderCreator) exactly as on a public chain; the two CREATE2 deployers get `anvil_setCode` when absent.
 * Works in any mining mode (mines one block). Throws a devnet error if a contract misses its address.
 */
export async function deployErc4337Stack(
  rpc: JsonRpc,
  parameters: DeployErc4337StackParameters,
): Promise<DeployErc4337StackReturnType> {
  const { network, from } = parameters
  const deployers = [CREATE2_DEPLOYER_ADDRESS, SAFE_SINGLETON_FACTORY_ADDRESS]
  const codes = (await rpc.batch([
    ...[...deployers, ...ERC4337_CONTRACTS.map((c) => c.address)].map((address) => ({
      method: 'eth_getCode',
      params: [address, 'latest'],
    })),
    { method: 'eth_getTransactionCount', params: [from, 'pending'] },
  ])) as `0x${string}`[]
  const missing = ERC4337_CONTRACTS.filter((_, i) => codes[deployers.length + i] === '0x')
  const found = ERC4337_CONTRACTS.filter((c) => !missing.includes(c)).map((c) => c.name)
  if (missing.length === 0) {
    return { placed: [], found }
  }
  const setCodes = deployers
    .filter((_, i) => codes[i] === '0x')
    .map((address) => ({ method: 'anvil_setCode', params: [address, CREATE2_DEPLOYER_RUNTIME_CODE] }))
  await rpc.batch(setCodes)
  const firstNonce = Number(BigInt(codes.at(-1) ?? '0x0'))
  // Explicit gas (no estimation round trips): code deposit is 200 gas a byte of runtime code, plus
  // calldata and the constructor; all of the stack fits anvil's 30M block gas limit at once.
  const hashes = (await rpc.batch(
    missing.map((contract, i) => ({
      method: 'eth_sendTransaction',
      params: [
        {
          from,
          to: contract.deployer,
          data: concat([contract.salt, contract.initCode]),
          gas: numberToHex(500_000 + ((contract.initCode.length - 2) / 2) * 250),
          nonce: numberToHex(firstNonce + i),
        },
      ],
    })),
  )) as `0x${string}`[]
  await rpc.request('anvil_mine', ['0x1'])
  const results = await rpc.batch([
    ...hashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })),
    ...missing.map((c) => ({ method: 'eth_getCode', params: [c.address, 'latest'] })),
  ])
  missing.forEach((contract, i) => {
    const receipt = results[i] as Receipt
    if (receipt?.status !== '0x1' || results[missing.length + i] === '0x') {
      throw createDevnetError(`${network}: ${contract.name} did not land at ${contract.address}`, {
        network,
      })
    }
  })
  return { placed: missing.map((c) => c.name), found }
}
