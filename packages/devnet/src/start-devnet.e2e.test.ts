import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { SOLANA_DEVNET_NETWORK } from './solana/start-solana-devnet.js'
import { type LocalDevnet, startDevnet } from './start-devnet.js'

let devnet: LocalDevnet

beforeAll(async () => {
  devnet = await startDevnet({ evm: { payers: 2, relayers: 1 }, solana: { payers: 1, relayers: 1 } })
})

afterAll(async () => {
  await devnet?.stop()
})

async function rpc(url: string, method: string, params: unknown[] = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await response.json()) as { result: unknown }).result
}

describe('startDevnet', () => {
  test('default: EVM chains and Solana side by side, each answering its RPC', async () => {
    expect(Object.keys(devnet.networks)).toEqual([
      'eip155:84532',
      'eip155:421614',
      'eip155:97',
      'eip155:11155111',
      'eip155:80002',
      'eip155:11142220',
      SOLANA_DEVNET_NETWORK,
    ])
    for (const network of Object.values(devnet.networks)) {
      if (network.kind === 'evm') {
        expect(Number(await rpc(network.rpcUrl, 'eth_chainId'))).toBe(network.chainId)
      } else {
        expect(await rpc(network.rpcUrl, 'getLatestBlockhash')).toMatchObject({
          value: { blockhash: expect.any(String) },
        })
      }
    }
    const roles = devnet.wallets.map((w) => `${w.network}:${w.role}`)
    expect(roles.filter((r) => r === 'eip155:97:payer')).toHaveLength(2)
    expect(roles.filter((r) => r === `${SOLANA_DEVNET_NETWORK}:relayer`)).toHaveLength(1)
    expect(devnet.evm?.owner.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(devnet.solana).toBeDefined()
  })

  test('behavior: fund() goes to the chain that owns the network', async () => {
    const base = devnet.networks['eip155:84532']
    const address = '0x000000000000000000000000000000000000dEaD'
    await devnet.fund({ network: 'eip155:84532', address, amount: 7n })
    expect(BigInt((await rpc(base?.rpcUrl ?? '', 'eth_getBalance', [address, 'latest'])) as string)).toBe(7n)
    await expect(devnet.fund({ network: 'eip155:1', address, amount: 1n })).rejects.toMatchObject({
      code: 'invalid_network',
    })
  })

  test('behavior: a family set to false is left out', async () => {
    const solanaOnly = await startDevnet({ evm: false, solana: { payers: 1, relayers: 0 } })
    try {
      expect(Object.keys(solanaOnly.networks)).toEqual([SOLANA_DEVNET_NETWORK])
      expect(solanaOnly.evm).toBeUndefined()
    } finally {
      await solanaOnly.stop()
    }
  })
})
