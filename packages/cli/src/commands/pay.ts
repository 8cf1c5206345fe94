import { defineCommand } from 'citty'
import type { TollgateContext } from '../tollgate-context.js'

/**
 * `tollgate pay <url>`: fetches a URL and pays its x402 answer from the agent's wallet. The agent's
 * `runCli` parses and runs it; the options here are its options, for `--help`.
 */
export function createPayCommand(context: TollgateContext) {
  return defineCommand({
    meta: {
      name: 'pay',
      description: 'Fetch a URL like curl and pay its x402 "402 Payment Required" answer from your wallet',
    },
    args: {
      url: { type: 'positional', description: 'The resource to fetch', required: true },
      request: { type: 'string', alias: 'X', description: 'HTTP method (default GET, or POST with --data)' },
      header: { type: 'string', alias: 'H', description: 'Request header "Name: value", repeatable' },
      data: { type: 'string', alias: 'd', description: 'Request body; @file reads it from a file' },
      max: { type: 'string', description: 'Largest payment allowed (default $1), e.g. --max 0.05' },
      'max-per-day': { type: 'string', description: 'Cap on what this run may sign in 24 hours (USD)' },
      rpc: {
        type: 'string',
        valueHint: 'network=url',
        description: 'RPC URL for a CAIP-2 network, repeatable (Solana payments need one)',
      },
      'check-balance': {
        type: 'boolean',
        description: 'Check the token balance before signing (uses --rpc)',
      },
      'approve-permit2': {
        type: 'boolean',
        description: 'Send the one-time Permit2 approval when a Permit2 option needs it',
      },
      include: { type: 'boolean', alias: 'i', description: 'Also print the response status and headers' },
      'smart-account': {
        type: 'string',
        valueHint: 'safe',
        description:
          'Pay from the Safe smart account the key owns, on each EVM network given with --rpc (deployed or not)',
      },
    },
    run: ({ rawArgs }) => runAgent(context, ['pay', ...rawArgs]),
  })
}

/** `tollgate address`: the agent wallet's address (keys from the environment, as `pay`). */
export function createAddressCommand(context: TollgateContext) {
  return defineCommand({
    meta: {
      name: 'address',
      description: "Print the agent wallet's address (keys from the environment, see `tollgate pay --help`)",
    },
    args: {
      'smart-account': {
        type: 'string',
        valueHint: 'safe',
        description: "Print the address of the key's Safe smart account instead, on each --rpc network",
      },
      rpc: {
        type: 'string',
        valueHint: 'network=url',
        description: 'RPC URL for a CAIP-2 network, repeatable',
      },
    },
    run: ({ rawArgs }) => runAgent(context, ['address', ...rawArgs]),
  })
}

async function runAgent({ io, setExitCode }: TollgateContext, argv: string[]): Promise<void> {
  const { runCli } = await import('@tollgate/agent')
  setExitCode(await runCli(argv, { env: io.env, fetch: io.fetch, stdout: io.stdout, stderr: io.stderr }))
}
