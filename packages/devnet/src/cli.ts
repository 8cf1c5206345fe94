// `npm run devnet`: start the local chains alone, print the networks and wallets as JSON on stdout,
// and keep them running until Ctrl-C. `--fork <caip2>=<rpc-url>` and `--fund <address>`: see --help.
import { DEVNET_FLAGS_HELP, parseDevnetFlags } from './devnet-flags.js'
import { DEFAULT_EVM_NETWORKS } from './evm/evm-networks.js'
import { startDevnet } from './start-devnet.js'

const USAGE = `Usage: npm run devnet -- [--fork <caip2>=<rpc-url>]... [--fund <address>]...

Starts the local chains (anvil for ${DEFAULT_EVM_NETWORKS.map((n) => n.network).join(', ')};
LiteSVM for Solana devnet) and prints their manifest (networks, wallets) as JSON; Ctrl-C stops them.

${DEVNET_FLAGS_HELP}`

const fail = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`)
  process.exit(2)
}

let flags: ReturnType<typeof parseDevnetFlags> = { forks: [], fund: [], rest: [] }
try {
  flags = parseDevnetFlags(process.argv.slice(2))
} catch (error) {
  fail(error instanceof Error ? error.message : String(error))
}
if (flags.rest.includes('--help') || flags.rest.includes('-h')) {
  console.log(USAGE)
  process.exit(0)
}
if (flags.rest.length > 0) {
  fail(`unknown arguments: ${flags.rest.join(' ')}`)
}

const started = performance.now()
const devnet = await startDevnet({ evm: { forks: flags.forks, fund: flags.fund } }).catch((error: unknown) =>
  fail(`devnet failed to start: ${error instanceof Error ? error.message : String(error)}`),
)
console.log(JSON.stringify({ networks: devnet.networks, wallets: devnet.wallets }, null, 2))
for (const network of Object.values(devnet.networks)) {
  if (network.fork) {
    const list = (status: string) =>
      network.fork?.contracts
        .filter((c) => c.status === status)
        .map((c) => c.name)
        .join(', ') || 'none'
    console.error(
      `${network.network}: fork at block ${network.fork.blockNumber}; found ${list('found')}; placed ${list('placed')}`,
    )
  }
}
if (flags.fund.length > 0) {
  console.error(`funded on every EVM network: ${flags.fund.join(', ')}`)
}
console.error(`devnet ready in ${Math.round(performance.now() - started)} ms; Ctrl-C stops it`)

const shutdown = async () => {
  await devnet.stop()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
