import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DevnetManifest } from '@tollgate/devnet'
import { type FacilitatorConfig, parseFacilitatorConfig } from '../src/facilitator-config.js'
import { type FacilitatorServer, startFacilitatorServer } from '../src/start-facilitator-server.js'

/**
 * The facilitator configuration for a running devnet, as an operator would write it: every network
 * with its RPC, its relayer keys (through env vars) and its assets as the allowlist.
 */
export function createDevnetConfig(
  devnet: DevnetManifest,
  overrides: Record<string, unknown> = {},
  extraEnv: Record<string, string> = {},
): FacilitatorConfig {
  const env: Record<string, string> = { FACILITATOR_TOKEN: 'devnet-token', ...extraEnv }
  const networks: Record<string, unknown> = {}
  for (const [id, network] of Object.entries(devnet.networks)) {
    const relayers = devnet.wallets.filter((w) => w.network === id && w.role === 'relayer')
    const signers = relayers.map((wallet, i) => {
      const name = `KEY_${id.replace(/\W/g, '_')}_${i}`
      env[name] = wallet.privateKey
      return { privateKeyEnv: name }
    })
    networks[id] = {
      rpcUrl: network.rpcUrl,
      schemes: network.kind === 'svm' ? ['solana'] : ['eip3009', 'permit2'],
      signers,
      assets: Object.values(network.assets),
      pollingIntervalMs: 50,
    }
  }
  return parseFacilitatorConfig(
    {
      port: 0,
      host: '127.0.0.1',
      authTokenEnv: 'FACILITATOR_TOKEN',
      networks,
      logLevel: 'silent',
      // Tests pay a few atomic units, many times from one payer: no floor, a wide payer window.
      limits: { defaultMinAmount: 'none', perPayer: { settles: 10_000, windowSeconds: 60 } },
      ...overrides,
    },
    env,
  )
}

/**
 * Starts the standalone facilitator server for `devnet` on a fresh PGlite data directory (or on
 * the database `overrides.databaseUrlEnv` names, through `env`).
 */
export async function startDevnetFacilitator(
  devnet: DevnetManifest,
  overrides: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<FacilitatorServer & { token: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-facilitator-e2e-'))
  const server = await startFacilitatorServer(createDevnetConfig(devnet, { dataDir, ...overrides }, env))
  return {
    ...server,
    token: 'devnet-token',
    async stop() {
      await server.stop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
