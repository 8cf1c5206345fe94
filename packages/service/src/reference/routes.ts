import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { AppEnv } from '../http/app-env.js'
import { createEnvelope, toEnvelopeSchema, toErrorResponses } from '../http/envelope.js'
import { validationHook } from '../http/validation-hook.js'
import { type GasFeeReaders, getGasFees } from './get-gas-fees.js'
import { nigerianBanks } from './nigerian-banks.js'
import { getChainAssets, getConfirmations, type ReferenceData } from './reference-data.js'

/** A chain asset entry of the spec: native coins have no `contract`. */
export const ChainAssetEntry = z
  .object({
    asset: z.string().describe('asset symbol, e.g. USDC'),
    networkId: z.string().describe('CAIP-2 network id, e.g. eip155:84532'),
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

const gasFeesRoute = createRoute({
  method: 'get',
  path: '/blockchain/gas-fees',
  tags,
  security,
  summary: 'Current network fee of a transfer per chain and asset',
  description:
    'Fee in the chain native coin (decimal string) per lower-case asset symbol. Read from the chain where an RPC is configured (EVM: gas price x 21,000 for the native coin, x 65,000 for tokens; Solana: 5,000 lamports per signature plus, for tokens, the rent of a token account); static sandbox values elsewhere.',
  responses: {
    200: {
      description: 'Chain to asset to fee',
      content: {
        'application/json': {
          schema: toEnvelopeSchema(z.record(z.string(), z.record(z.string(), z.string()))),
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

/** Options of {@link createReferenceRoutes}: the reference table and the fee readers of configured chains. */
export type ReferenceRoutesOptions = { reference: ReferenceData; gasFeeReaders: GasFeeReaders }

/** Routes of the reference data: assets, confirmations, gas fees, recipient chains and banks. */
export function createReferenceRoutes(options: ReferenceRoutesOptions) {
  const assets = getChainAssets(options.reference)
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(assetsRoute, (c) => c.json(createEnvelope(assets, 'Assets retrieved'), 200))
    .openapi(confirmationsRoute, (c) =>
      c.json(createEnvelope(getConfirmations(options.reference, c.get('auth').environment)), 200),
    )
    .openapi(gasFeesRoute, async (c) =>
      c.json(
        createEnvelope(await getGasFees(options.reference, options.gasFeeReaders), 'Gas fees retrieved'),
        200,
      ),
    )
    .openapi(chainsRoute, (c) => c.json(createEnvelope(assets, 'Chains retrieved'), 200))
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
