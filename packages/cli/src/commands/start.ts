import { defineCommand } from 'citty'
import { type TollgateContext, writeError, writeLine } from '../tollgate-context.js'

/** `tollgate start`: the sandbox (local chains, facilitator, service on PGlite), what `npm start` runs. */
export function createStartCommand({ io }: TollgateContext) {
  return defineCommand({
    meta: {
      name: 'start',
      description:
        'Start the sandbox: local chains, facilitator, demo resource and the merchant API with a sk_test_ key',
    },
    args: {
      port: { type: 'string', description: 'TCP port (default PORT or 4020; 0 picks a free one)' },
    },
    run: async ({ rawArgs }) => {
      const [{ runSandboxCommand }, { startDevnet }] = await Promise.all([
        import('@tollgate/service'),
        import('@tollgate/devnet'),
      ])
      await runSandboxCommand(rawArgs, io.env, {
        startDevnet: () => startDevnet(),
        out: (text) => writeLine(io, text),
        err: (text) => writeError(io, text),
      })
    },
  })
}
