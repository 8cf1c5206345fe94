import type { Asset } from '@tollgate/core'
import { decodeFunctionResult, encodeFunctionData, erc20Abi, getAddress, parseAbi } from 'viem'
import { createDevnetError } from '../errors.js'
import type { DevnetAsset, TransferMethod } from '../types.js'
import type { JsonRpc } from './json-rpc.js'

const domainAbi = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function version() view returns (string)',
])

async function call(
  rpc: JsonRpc,
  to: `0x${string}`,
  data: `0x${string}`,
): Promise<`0x${string}` | undefined> {
  try {
    const result = await rpc.request<`0x${string}`>('eth_call', [{ to, data }, 'latest'])
    return result === '0x' ? undefined : result
  } catch {
    // A revert (no such function) is an answer here, not a failure.
    return undefined
  }
}

/**
 * The EIP-712 domain name and version of the token at `address`, read from the token: ERC-5267
 * `eip712Domain()` when it answers, else `name()` and `version()` (Circle's FiatToken has no
 * ERC-5267). `undefined` when the token has neither.
 */
export async function readEip712Domain(
  rpc: JsonRpc,
  address: `0x${string}`,
): Promise<{ name: string; version: string } | undefined> {
  const erc5267 = await call(
    rpc,
    address,
    encodeFunctionData({ abi: domainAbi, functionName: 'eip712Domain' }),
  )
  if (erc5267) {
    const [, name, version] = decodeFunctionResult({
      abi: domainAbi,
      functionName: 'eip712Domain',
      data: erc5267,
    })
    return { name, version }
  }
  const [name, version] = await Promise.all([
    call(rpc, address, encodeFunctionData({ abi: erc20Abi, functionName: 'name' })),
    call(rpc, address, encodeFunctionData({ abi: domainAbi, functionName: 'version' })),
  ])
  if (!name || !version) {
    return undefined
  }
  return {
    name: decodeFunctionResult({ abi: erc20Abi, functionName: 'name', data: name }),
    version: decodeFunctionResult({ abi: domainAbi, functionName: 'version', data: version }),
  }
}

/**
 * A registry token as it really is on a fork: it must have code at the registry's address; decimals
 * and the EIP-712 domain are read from it, never taken from the registry. A token the registry lists
 * with EIP-3009 but that has no readable domain is offered with Permit2 only.
 */
export async function readForkAsset(rpc: JsonRpc, asset: Asset): Promise<DevnetAsset> {
  const address = getAddress(asset.address)
  const code = await rpc.request<`0x${string}`>('eth_getCode', [address, 'latest'])
  if (code === '0x') {
    throw createDevnetError(
      `${asset.network}: no contract at ${address} (${asset.symbol}) on the fork; is the RPC URL for this network?`,
      { network: asset.network },
    )
  }
  const decimalsData = await call(
    rpc,
    address,
    encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' }),
  )
  if (!decimalsData) {
    throw createDevnetError(`${asset.network}: ${asset.symbol} at ${address} does not answer decimals()`, {
      network: asset.network,
    })
  }
  const decimals = decodeFunctionResult({ abi: erc20Abi, functionName: 'decimals', data: decimalsData })
  const signs = asset.transferMethods.includes('eip3009')
  const eip712 = signs ? await readEip712Domain(rpc, address) : undefined
  const transferMethods = asset.transferMethods.filter(
    (method): method is TransferMethod => method !== 'eip3009' || eip712 !== undefined,
  )
  return { symbol: asset.symbol, address, decimals, ...(eip712 ? { eip712 } : {}), transferMethods }
}
