import { defineCommand } from 'citty'
import { type TollgateContext, UsageError, writeError, writeLine } from '../tollgate-context.js'

/** `tollgate serve --config <file>`: the production server (docs/production.md). */
export function createServeCommand({ io }: TollgateContext) {
  return defineCommand({
    meta: {
      name: 'serve',
      description:
        'Run the merchant service in production mode: PostgreSQL, live networks, live keys, no devnet or sandbox routes',
    },
    args: {
      config: {
        type: 'string',
        alias: 'c',
        valueHint: 'tollgate.config.json',
        description: 'The configuration file (or TOLLGATE_CONFIG); secrets come from the environment',
      },
      port: { type: 'string', description: 'TCP port, replacing the file and PORT' },
      host: { type: 'string', description: 'Interface to listen on, replacing the file and HOST' },
    },
    run: async ({ args }) => {
      const configPath = args.config ?? io.env.TOLLGATE_CONFIG
      if (!configPath) {
        throw new UsageError('--config is required (or set TOLLGATE_CONFIG)')
      }
      const { runServeCommand } = await import('@tollgate/service')
      await runServeCommand({ configPath, port: args.port, host: args.host }, io.env, {
        out: (text) => writeLine(io, text),
        err: (text) => writeError(io, text),
      })
    },
  })
}
