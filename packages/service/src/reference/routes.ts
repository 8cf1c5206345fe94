import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import type { AppEnv } from '../http/app-env.js'
import { createEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import { createGasFeeCache } from './gas-fee-cache.js'
import { type GasFeeReaders, getGasFees, getLiveGasFees } from './get-gas-fees.js'
import { nigerianBanks } from './nigerian-banks.js'
import {
  getChainAssets,
  getConfirmations,
  getRegistryChainAssets,
  type ReferenceData,
} from './reference-data.js'

/** A chain asset entry of the spec: native coins have no `contract`. */
export const ChainAssetEntry = z
  .object({
    asset: z.string().describe('asset symbol, e.g. USDC'),
    networkId: z
      .string()
      .describe(
        'CAIP-2 network id of the key environment: eip155:8453 (Base) for live keys, eip155:84532 for sandbox keys',
      ),
    metadata: z.object({ name: z.string(), symbol: z.string(), decimals: z.number().int() }),
    contract: z
      .object({ address: z.string(), decimals: z.number().int() })
      .optional()
      .describe('token contract (EVM) or mint (Solana); absent for native coins'),
  })
  .openapi('ChainAssetEntry')

const ChainAssets = z.record(z.string(), z.array(ChainAssetEntry)).openapi('ChainAssets')

/** A bank of GET /recipients/banks. */
export const Bank = z
  .object({
    name: z.string(),
    slug: z.string(),
    code: z.string(),
    nibss_bank_code: z.string(),
    country: z.string(),
  })
  .openapi('Bank')

const tags = ['Reference data']
const security = [{ ApiKey: [] }]
const errors = toErrorResponses(401, 429)

const assetsRoute = createRoute({
  method: 'get',
  path: '/blockchain/assets',
  tags,
  security,
  summary: 'Supported chains and their assets',
  description:
    "Per the key's environment: live keys get the mainnets (CAIP-2 ids, contracts and tokens the service accepts there), sandbox keys the test networks the devnet runs.",
  responses: {
    200: {
      description: 'Chain asset entries keyed by chain',
      content: { 'application/json': { schema: toEnvelopeSchema(ChainAssets) } },
    },
    ...errors,
  },
})

const confirmationsRoute = createRoute({
  method: 'get',
  path: '/blockchain/confirmations',
  tags,
  security,
  summary: 'Confirmations required for finality per chain',
  description: 'Sandbox (`sk_test_`) keys get the devnet values (1); live keys the production values.',
  responses: {
    200: {
      description: 'Chain to confirmation count',
      content: { 'application/json': { schema: toEnvelopeSchema(z.record(z.string(), z.number().int())) } },
    },
    ...errors,
  },
})

const GasFeeUnavailable = z
  .record(z.string(), z.enum(['no_node_configured', 'no_fee_reader']))
  .describe(
    'chains (by name) without fees in `data` and why: no node of the chain is configured, or its node is of a family whose fees are not read (live keys only; empty for sandbox keys)',
  )
  .openapi('GasFeeUnavailable')

const gasFeesRoute = createRoute({
  method: 'get',
  path: '/blockchain/gas-fees',
  tags,
  security,
  summary: 'Current network fee of a transfer per chain and asset',
  description:
    'Fee in the chain native coin (decimal string) per lower-case asset symbol, read from the chain (EVM: gas price x 21,000 for the native coin, x 65,000 for tokens; Solana: 5,000 lamports per signature plus, for tokens, the rent of a token account) and reused for 10 seconds. Live keys: only chains whose node is configured have fees; the others are named in `unavailable`. Sandbox keys: static sandbox values on chains the devnet does not run.',
  responses: {
    200: {
      description: 'Chain to asset to fee, and the chains without fees',
      content: {
        'application/json': {
          schema: toEnvelopeSchema(z.record(z.string(), z.record(z.string(), z.string()))).extend({
            unavailable: GasFeeUnavailable,
          }),
        },
      },
    },
    ...toErrorResponses(401, 429, 503),
  },
})

const chainsRoute = createRoute({
  method: 'get',
  path: '/recipients/chains',
  tags: ['Recipients'],
  security,
  summary: 'Chains a crypto recipient may use, with their assets',
  description: "Per the key's environment, as GET /blockchain/assets.",
  responses: {
    200: {
      description: 'Chain asset entries keyed by chain',
      content: { 'application/json': { schema: toEnvelopeSchema(ChainAssets) } },
    },
    ...errors,
  },
})

const banksRoute = createRoute({
  method: 'get',
  path: '/recipients/banks',
  tags: ['Recipients'],
  security,
  summary: 'Banks a bank-account recipient may use',
  request: {
    query: z.object({
      country: z
        .string()
        .default('ng')
        .refine((value) => value.toLowerCase() === 'ng', { message: 'only ng (Nigeria) is supported' })
        .openapi({
          param: { name: 'country', in: 'query' },
          example: 'ng',
          description: 'ISO 3166-1 alpha-2; only ng',
        }),
    }),
  },
  responses: {
    200: {
      description: 'Sandbox list of Nigerian banks',
      content: {
        'application/json': {
          schema: toEnvelopeSchema(
            z.object({ status: z.boolean(), message: z.string(), data: z.array(Bank) }),
          ),
        },
      },
    },
    ...toErrorResponses(400, 401, 429),
  },
})

/**
 * Options of {@link createReferenceRoutes}: the sandbox reference table with the fee readers of its
 * chains, and the fee readers of the configured live networks.
 */
export type ReferenceRoutesOptions = {
  reference: ReferenceData
  gasFeeReaders: GasFeeReaders
  liveGasFeeReaders?: GasFeeReaders
}

/**
 * Routes of the reference data: assets, confirmations, gas fees, recipient chains and banks, each
 * answered for the key's environment (live keys from the live chain registry, sandbox keys from the
 * sandbox table).
 */
export function createReferenceRoutes(deps: Pick<Deps, 'rails' | 'clock'>, options: ReferenceRoutesOptions) {
  const sandboxAssets = getChainAssets(options.reference)
  const liveAssets = getRegistryChainAssets(deps.rails.chains.list('live'))
  const assetsOf = (environment: 'test' | 'live') => (environment === 'live' ? liveAssets : sandboxAssets)
  const cache = createGasFeeCache(deps.clock)
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(assetsRoute, (c) =>
      c.json(createEnvelope(assetsOf(c.get('auth').environment), 'Assets retrieved'), 200),
    )
    .openapi(confirmationsRoute, (c) =>
      c.json(createEnvelope(getConfirmations(options.reference, c.get('auth').environment)), 200),
    )
    .openapi(gasFeesRoute, async (c) => {
      if (c.get('auth').environment === 'live') {
        const { fees, unavailable } = await getLiveGasFees(
          deps.rails.chains.list('live'),
          options.liveGasFeeReaders ?? {},
          cache,
        )
        return c.json({ ...createEnvelope(fees, 'Gas fees retrieved'), unavailable }, 200)
      }
      const fees = await getGasFees(options.reference, options.gasFeeReaders, cache)
      return c.json({ ...createEnvelope(fees, 'Gas fees retrieved'), unavailable: {} }, 200)
    })
    .openapi(chainsRoute, (c) =>
      c.json(createEnvelope(assetsOf(c.get('auth').environment), 'Chains retrieved'), 200),
    )
    .openapi(banksRoute, (c) =>
      c.json(
        createEnvelope(
          { status: true, message: 'Banks retrieved', data: [...nigerianBanks] },
          'Banks retrieved',
        ),
        200,
      ),
    )
}
