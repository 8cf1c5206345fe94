import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness, type Harness } from '../testing/harness.js'
import { createGasFeeReaders } from './get-gas-fees.js'
import { createReferenceData } from './reference-data.js'

const anvilBin = fileURLToPath(
  new URL('../../../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', import.meta.url),
)

/** Starts anvil on a free port with a fixed base fee; resolves its RPC URL. */
function startAnvil(): Promise<{ rpcUrl: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(anvilBin, [
      '--port',
      '0',
      '--chain-id',
      '84532',
      '--block-base-fee-per-gas',
      '1000000000',
    ])
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on ([\d.]+:\d+)/.exec(output)
      if (match) {
        resolve({ rpcUrl: `http://${match[1]}`, child })
      }
    })
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}: ${output}`)))
  })
}

/** A Solana JSON-RPC stand-in answering getMinimumBalanceForRentExemption (rent = 6960 * (128 + bytes)). */
function startSolanaRpc(): Promise<{ rpcUrl: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: number[] }
      const result = method === 'getMinimumBalanceForRentExemption' ? 6960 * (128 + (params[0] ?? 0)) : null
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result }))
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  )
}

describeEachDatabase('reference routes', (getDb) => {
  let h: Harness
  let anvil: { rpcUrl: string; child: ChildProcess }
  let solana: { rpcUrl: string; server: Server }
  beforeAll(async () => {
    ;[anvil, solana] = await Promise.all([startAnvil(), startSolanaRpc()])
    const reference = createReferenceData({
      networks: {
        'eip155:84532': {
          network: 'eip155:84532',
          kind: 'evm',
          rpcUrl: anvil.rpcUrl,
          assets: { USDC: { symbol: 'USDC', address: '0xUSDC', decimals: 6, transferMethods: ['eip3009'] } },
        },
        'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': {
          network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
          kind: 'svm',
          rpcUrl: solana.rpcUrl,
          assets: { USDC: { symbol: 'USDC', address: 'Mint111', decimals: 6, transferMethods: ['solana'] } },
        },
      },
    })
    h = await createHarness(getDb(), { reference, gasFeeReaders: createGasFeeReaders(reference) })
  })
  afterAll(() => {
    anvil?.child.kill()
    solana?.server.close()
  })

  test('GET /blockchain/assets: every spec chain, tokens with contract, natives without', async () => {
    const res = await h.request('/api/v1/blockchain/assets')
    expect(res.status).toBe(200)
    const { data } = (await res.json()) as { data: Record<string, { asset: string; contract?: unknown }[]> }
    expect(Object.keys(data).sort()).toEqual([
      'arbitrum',
      'base',
      'bitcoin',
      'bsc',
      'celo',
      'dogecoin',
      'ethereum',
      'polygon',
      'solana',
      'tron',
    ])
    expect(data.base).toEqual([
      { asset: 'ETH', networkId: 'eip155:84532', metadata: { name: 'Ether', symbol: 'ETH', decimals: 18 } },
      {
        asset: 'USDC',
        networkId: 'eip155:84532',
        metadata: { name: 'USD Coin', symbol: 'USDC', decimals: 6 },
        contract: { address: '0xUSDC', decimals: 6 },
      },
    ])
    expect(data.bitcoin?.every((entry) => entry.contract === undefined)).toBe(true)
    const chains = await h.request('/api/v1/recipients/chains')
    expect(((await chains.json()) as { data: unknown }).data).toEqual(data)
  })

  test('GET /blockchain/confirmations: per key environment', async () => {
    const test_ = (await (await h.request('/api/v1/blockchain/confirmations')).json()) as {
      data: Record<string, number>
    }
    expect(test_.data).toMatchObject({ ethereum: 1, bitcoin: 1, solana: 1 })
    const live = (await (
      await h.request('/api/v1/blockchain/confirmations', { key: h.a.liveKey })
    ).json()) as {
      data: Record<string, number>
    }
    expect(live.data).toMatchObject({ ethereum: 12, bsc: 15, solana: 32, bitcoin: 2, tron: 19, dogecoin: 6 })
  })

  test('GET /blockchain/gas-fees: read from anvil and the Solana RPC, static elsewhere', async () => {
    const res = await h.request('/api/v1/blockchain/gas-fees')
    expect(res.status).toBe(200)
    const { data } = (await res.json()) as { data: Record<string, Record<string, string>> }
    // anvil's gas price is base fee (1 gwei) plus its default 1 gwei priority tip suggestion.
    const gasPrice = Number(data.base?.eth) / 21_000
    expect(gasPrice).toBeGreaterThanOrEqual(1e-9)
    expect(Number(data.base?.usdc)).toBeCloseTo(gasPrice * 65_000, 12)
    expect(data.solana).toEqual({ sol: '0.000005', usdc: String((5000 + 6960 * (128 + 165)) / 1e9) })
    expect(data.tron).toEqual({ trx: '1.1', usdt: '13.3959' })
  })

  test('GET /recipients/banks: Nigerian banks; other countries are 400', async () => {
    const res = await h.request('/api/v1/recipients/banks')
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      data: { status: boolean; data: { code: string; country: string }[] }
    }
    expect(body.data.status).toBe(true)
    expect(body.data.data.find((b) => b.code === '058')).toMatchObject({
      name: 'Guaranty Trust Bank',
      country: 'NG',
    })
    expect((await h.request('/api/v1/recipients/banks?country=NG')).status).toBe(200)
    const ke = await h.request('/api/v1/recipients/banks?country=ke')
    expect(ke.status).toBe(400)
    expect(await ke.json()).toMatchObject({
      error: { code: 'validation_error', details: [{ field: 'query.country' }] },
    })
  })

  test('auth: every reference route is a 401 without a key', async () => {
    for (const path of [
      '/api/v1/blockchain/assets',
      '/api/v1/blockchain/confirmations',
      '/api/v1/blockchain/gas-fees',
      '/api/v1/recipients/chains',
      '/api/v1/recipients/banks',
    ]) {
      const res = await h.request(path, { key: null })
      expect(res.status, path).toBe(401)
      expect(await res.json()).toMatchObject({ success: false, data: null, error: { code: 'unauthorized' } })
    }
  })

  test('behavior: a node that stops answering is a 503 provider_unavailable', async () => {
    const reference = createReferenceData({
      networks: {
        'eip155:97': { network: 'eip155:97', kind: 'evm', rpcUrl: 'http://127.0.0.1:9', assets: {} },
      },
    })
    const down = await createHarness(getDb(), { reference, gasFeeReaders: createGasFeeReaders(reference) })
    const res = await down.request('/api/v1/blockchain/gas-fees', { key: down.a.testKey })
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ error: { code: 'provider_unavailable' } })
  })
})
