import { concat, encodeFunctionData, maxUint256, numberToHex } from 'viem'
import { createDevnetError } from '../errors.js'
import { usdcLikeAbi, usdtLikeAbi } from './abis.js'
import {
  CREATE2_DEPLOYER_ADDRESS,
  MULTICALL3_ADDRESS,
  PERMIT2_ADDRESS,
  PERMIT2_SALT,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
} from './addresses.js'
import { fixtureBytecodes } from './bytecodes.js'
import type { EvmAccount } from './dev-accounts.js'
import { setAllowanceCall, setBalanceCall, setTotalSupplyCall } from './erc20-storage.js'
import type { EvmNetworkConfig, EvmTokenConfig } from './evm-networks.js'
import type { JsonRpc, RpcCall } from './json-rpc.js'
import { getPermit2CreationCode } from './permit2-creation-code.js'

/** Parameters of {@link setupEvmFixtures}. `payerBalance` is in whole tokens (scaled by each token's decimals). */
export type SetupEvmFixturesParameters = {
  rpc: JsonRpc
  config: EvmNetworkConfig
  owner: EvmAccount
  payers: { address: `0x${string}`; permit2Approved: boolean }[]
  payerBalance: bigint
}

type Receipt = { status: `0x${string}`; transactionHash: `0x${string}` } | null

/**
 * Puts the fixtures on a fresh anvil (mining is left off; the caller picks the mode afterwards):
 * runtime code placed with `anvil_setCode` for the tokens (at their real addresses), the x402 proxy and
 * Multicall3; balances and Permit2 approvals written to storage; then one block with the transactions
 * that must run as code: Permit2's CREATE2 deployment and each token's one-time `initialize`.
 */
export async function setupEvmFixtures(parameters: SetupEvmFixturesParameters): Promise<void> {
  const { rpc, config, owner, payers, payerBalance } = parameters
  const placed: RpcCall[] = [
    { method: 'evm_setAutomine', params: [false] },
    setCode(X402_EXACT_PERMIT2_PROXY_ADDRESS, fixtureBytecodes.X402ExactPermit2Proxy.deployedBytecode),
    setCode(MULTICALL3_ADDRESS, fixtureBytecodes.Multicall3.deployedBytecode),
  ]
  for (const token of config.tokens) {
    const amount = payerBalance * 10n ** BigInt(token.decimals)
    placed.push(setCode(token.address, fixtureBytecodes[token.contract].deployedBytecode))
    placed.push(setTotalSupplyCall(token.address, amount * BigInt(payers.length)))
    for (const payer of payers) {
      placed.push(setBalanceCall(token.address, payer.address, amount))
      if (payer.permit2Approved) {
        placed.push(setAllowanceCall(token.address, payer.address, PERMIT2_ADDRESS, maxUint256))
      }
    }
  }
  await rpc.batch(placed)

  // Explicit nonces: the batch may be handled concurrently, and all of these go into one block.
  const transactions = [
    { to: CREATE2_DEPLOYER_ADDRESS, data: concat([PERMIT2_SALT, getPermit2CreationCode()]) },
    ...config.tokens.map((token) => ({ to: token.address, data: encodeInitialize(token, owner.address) })),
  ].map((tx, nonce) => ({
    method: 'eth_sendTransaction',
    params: [{ from: owner.address, ...tx, nonce: numberToHex(nonce) }],
  }))
  const hashes = (await rpc.batch(transactions)) as `0x${string}`[]
  await rpc.request('anvil_mine', ['0x1'])
  const results = await rpc.batch([
    ...hashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })),
    { method: 'eth_getCode', params: [PERMIT2_ADDRESS, 'latest'] },
  ])
  const failed = (results.slice(0, hashes.length) as Receipt[]).findIndex((r) => r?.status !== '0x1')
  if (failed !== -1) {
    throw createDevnetError(
      `${config.network}: fixture setup transaction ${failed} failed (${hashes[failed]})`,
      {
        network: config.network,
      },
    )
  }
  if (results.at(-1) === '0x') {
    throw createDevnetError(`${config.network}: Permit2 did not land at ${PERMIT2_ADDRESS}`, {
      network: config.network,
    })
  }
}

function setCode(address: `0x${string}`, code: `0x${string}`): RpcCall {
  return { method: 'anvil_setCode', params: [address, code] }
}

function encodeInitialize(token: EvmTokenConfig, owner: `0x${string}`): `0x${string}` {
  if (token.contract === 'UsdcLike') {
    return encodeFunctionData({
      abi: usdcLikeAbi,
      functionName: 'initialize',
      args: [token.name, token.symbol, token.eip712Version ?? '2', token.decimals, owner],
    })
  }
  return encodeFunctionData({
    abi: usdtLikeAbi,
    functionName: 'initialize',
    args: [token.name, token.symbol, token.decimals, owner],
  })
}
