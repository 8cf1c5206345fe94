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
      fork: {
        type: 'string',
        description:
          'Run an EVM network as an anvil fork, <caip2>=<rpc-url> (repeatable; Solana has no fork and stays on LiteSVM)',
      },
      fund: {
        type: 'string',
        description: 'Fund an extra address with gas and every x402 asset (repeatable)',
      },
    },
    run: async ({ rawArgs }) => {
      const [{ runSandboxCommand }, { startDevnet }] = await Promise.all([
        import('@tollgate/service'),
        import('@tollgate/devnet'),
      ])
      const { parseDevnetFlags } = await import('@tollgate/devnet')
      const flags = parseDevnetFlags(rawArgs)
      await runSandboxCommand(flags.rest, io.env, {
        devnet: { forks: flags.forks, fund: flags.fund },
        startDevnet: (evm) => startDevnet({ evm }),
        out: (text) => writeLine(io, text),
        err: (text) => writeError(io, text),
      })
    },
  })
}
