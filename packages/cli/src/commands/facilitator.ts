import { defineCommand } from 'citty'
import { type TollgateContext, UsageError } from '../tollgate-context.js'

/** `tollgate facilitator --config <file>`: the x402 facilitator standalone (docs/facilitator.md). */
export function createFacilitatorCommand({ io }: TollgateContext) {
  return defineCommand({
    meta: {
      name: 'facilitator',
      description: 'Run the x402 facilitator (POST /verify, POST /settle, GET /supported, /health, /metrics)',
    },
    args: {
      config: {
        type: 'string',
        alias: 'c',
        valueHint: 'file.json',
        description:
          'Networks, RPC URLs, assets and the env vars holding keys (or TOLLGATE_FACILITATOR_CONFIG)',
      },
      port: { type: 'string', description: "Replaces the config file's port" },
    },
    run: async ({ args }) => {
      const configPath = args.config ?? io.env.TOLLGATE_FACILITATOR_CONFIG
      if (!configPath) {
        throw new UsageError('--config is required (or set TOLLGATE_FACILITATOR_CONFIG)')
      }
      const { runFacilitatorCommand } = await import('@tollgate/facilitator')
      await runFacilitatorCommand({ configPath, port: args.port }, io.env)
    },
  })
}
