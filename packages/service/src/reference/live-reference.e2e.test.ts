import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createRails } from '../rails/create-rails.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { createManualClock } from '../testing/manual-clock.js'
import { createLiveGasFeeReaders } from './get-gas-fees.js'

type Entry = {
  asset: string
  networkId: string
  metadata: { symbol: string }
  contract?: { address: string }
}
type Json = { data: Record<string, Entry[]> }

// Base mainnet's node: an EVM JSON-RPC stand-in answering eth_gasPrice (2 gwei) and counting the calls.
function startBaseNode(): Promise<{ rpcUrl: string; server: Server; calls: () => number }> {
  let calls = 0
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string }
      calls += method === 'eth_gasPrice' ? 1 : 0
      const result = method === 'eth_gasPrice' ? '0x77359400' : method === 'eth_chainId' ? '0x2105' : null
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result }))
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        server,
        calls: () => calls,
      }),
    ),
  )
}

// Spec "Reference data": GET /blockchain/assets and /recipients/chains are "object keyed by chain
// of chain asset entries" (`networkId` e.g. `eip155:<chain_id>`, tokens with `contract`), and
// /blockchain/gas-fees "chain -> object asset symbol (lower case) -> fee string": for a live key,
// the live networks, not the sandbox's.
describeEachDatabase('reference data for a live key (spec "Reference data")', (getDb) => {
  let h: Harness
  let node: Awaited<ReturnType<typeof startBaseNode>>
  const clock = createManualClock()
  beforeAll(async () => {
    node = await startBaseNode()
    const networks = { 'eip155:8453': { rpcUrl: node.rpcUrl } }
    h = await createHarness(getDb(), {
      clock,
      rails: (base) => createRails(base, { networks }),
      liveGasFeeReaders: createLiveGasFeeReaders(networks),
    })
  })
  afterAll(() => {
    node?.server.close()
  })

  test('GET /blockchain/assets: live CAIP-2 ids and mainnet contracts, live tokens included', async () => {
    const res = await h.request('/api/v1/blockchain/assets', { key: h.a.liveKey })
    expect(res.status).toBe(200)
    const { data } = (await res.json()) as Json
    const networkOf = (chain: string) => new Set(data[chain]?.map((entry) => entry.networkId))
    expect(networkOf('base')).toEqual(new Set(['eip155:8453']))
    expect(networkOf('ethereum')).toEqual(new Set(['eip155:1']))
    expect(networkOf('arbitrum')).toEqual(new Set(['eip155:42161']))
    expect(networkOf('polygon')).toEqual(new Set(['eip155:137']))
    expect(networkOf('celo')).toEqual(new Set(['eip155:42220']))
    expect(networkOf('bsc')).toEqual(new Set(['eip155:56']))
    expect(networkOf('solana')).toEqual(new Set(['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']))
    const contract = (chain: string, asset: string) =>
      data[chain]?.find((entry) => entry.asset === asset)?.contract?.address
    expect(contract('base', 'USDC')).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')
    expect(contract('ethereum', 'USDT')).toBe('0xdAC17F958D2ee523a2206206994597C13D831ec7')
    expect(contract('arbitrum', 'USDT')).toBe('0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9')
    expect(contract('polygon', 'USDT')).toBe('0xc2132D05D31c914a87C6611C10748AEb04B58e8F')
    expect(contract('celo', 'USDT')).toBe('0x48065fbBE25f71C9282ddf5e1cD6D6A887483D5e')
    expect(contract('solana', 'USDC')).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')
    // Native coins have no contract; Tether has no USDT on Base.
    expect(data.base?.find((entry) => entry.asset === 'ETH')).toEqual({
      asset: 'ETH',
      networkId: 'eip155:8453',
      metadata: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    })
    expect(contract('base', 'USDT')).toBeUndefined()
    const chains = await h.request('/api/v1/recipients/chains', { key: h.a.liveKey })
    expect(((await chains.json()) as Json).data).toEqual(data)
  })

  test('GET /blockchain/assets: a sandbox key still gets the test networks', async () => {
    const { data } = (await (
      await h.request('/api/v1/blockchain/assets', { key: h.a.testKey })
    ).json()) as Json
    expect(data.base?.[0]?.networkId).toBe('eip155:84532')
    const chains = (await (await h.request('/api/v1/recipients/chains', { key: h.a.testKey })).json()) as Json
    expect(chains.data).toEqual(data)
  })

  test('GET /blockchain/gas-fees: read from the configured node, cached briefly, the rest named unavailable', async () => {
    const read = async () => {
      const res = await h.request('/api/v1/blockchain/gas-fees', { key: h.a.liveKey })
      expect(res.status).toBe(200)
      return (await res.json()) as {
        data: Record<string, Record<string, string>>
        unavailable: Record<string, string>
      }
    }
    const before = node.calls()
    const first = await read()
    // 2 gwei x 21,000 for ETH, x 65,000 for a token transfer; never the static sandbox table.
    expect(first.data).toEqual({ base: { eth: '0.000042', usdc: '0.00013' } })
    expect(first.unavailable).toEqual({
      bitcoin: 'no_node_configured',
      ethereum: 'no_node_configured',
      solana: 'no_node_configured',
      bsc: 'no_node_configured',
      tron: 'no_node_configured',
      polygon: 'no_node_configured',
      arbitrum: 'no_node_configured',
      celo: 'no_node_configured',
      dogecoin: 'no_node_configured',
    })
    expect(node.calls() - before).toBe(1)
    await read()
    expect(node.calls() - before).toBe(1)
    clock.advance(10_001)
    await read()
    expect(node.calls() - before).toBe(2)
  })

  test('GET /blockchain/gas-fees: a sandbox key keeps the sandbox values and an empty unavailable', async () => {
    const res = await h.request('/api/v1/blockchain/gas-fees', { key: h.a.testKey })
    const body = (await res.json()) as { data: Record<string, Record<string, string>>; unavailable: object }
    expect(body.data.tron).toEqual({ trx: '1.1', usdt: '13.3959' })
    expect(body.unavailable).toEqual({})
  })
})
