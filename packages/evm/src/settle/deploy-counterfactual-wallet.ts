import type { Address, Hex } from 'viem'
import type { ExactEvmNetwork } from '../exact/exact-evm-context.js'

/** Parameters of {@link deployCounterfactualWallet}: the wallet and its ERC-6492 deployment (an allowlisted factory). */
export type DeployCounterfactualWalletParameters = {
  wallet: Address
  factory: Address
  factoryData: Hex
  /** Gas limit of the deployment transaction. */
  gas: bigint
  timeoutMs: number
}

// One deployment in flight per wallet and network in this process: concurrent settles of payments
// from one counterfactual wallet share it instead of paying for a second (reverting) deployment.
const inflight = new WeakMap<ExactEvmNetwork, Map<string, Promise<boolean>>>()

/**
 * Deploys an ERC-6492 counterfactual wallet through its factory unless it already has code, at most
 * once at a time per wallet: the code is read fresh (not from the cache) before sending, and again
 * after a reverted deployment (another process may have deployed it first). Answers whether the
 * wallet has code afterwards; marks it in the code cache so the next verify routes to ERC-1271.
 */
export function deployCounterfactualWallet(
  net: ExactEvmNetwork,
  parameters: DeployCounterfactualWalletParameters,
): Promise<boolean> {
  let byWallet = inflight.get(net)
  if (!byWallet) {
    byWallet = new Map()
    inflight.set(net, byWallet)
  }
  const key = parameters.wallet.toLowerCase()
  const running = byWallet.get(key)
  if (running) {
    return running
  }
  const deployment = deploy(net, parameters).finally(() => byWallet.delete(key))
  byWallet.set(key, deployment)
  return deployment
}

async function deploy(
  net: ExactEvmNetwork,
  parameters: DeployCounterfactualWalletParameters,
): Promise<boolean> {
  const { wallet, factory, factoryData, gas, timeoutMs } = parameters
  if (await hasCodeNow(net, wallet)) {
    return true
  }
  const sent = await net.relayer.send({ to: factory, data: factoryData, gas })
  const receipt = await net.relayer.waitForReceipt(sent.hash, { timeoutMs })
  return receipt.status === 'success' ? markDeployed(net, wallet) : hasCodeNow(net, wallet)
}

/** Whether `wallet` has code now (read fresh, past the code cache); remembers it if so. */
export async function hasCodeNow(net: ExactEvmNetwork, wallet: Address): Promise<boolean> {
  const code = await net.client.getCode({ address: wallet })
  return code !== undefined && code !== '0x' ? markDeployed(net, wallet) : false
}

function markDeployed(net: ExactEvmNetwork, wallet: Address): true {
  net.codeCache.markHasCode(wallet)
  return true
}
