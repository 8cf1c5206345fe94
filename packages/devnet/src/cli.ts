// `npm run devnet`: start the local chains alone, print the networks and wallets as JSON on stdout,
// and keep them running until Ctrl-C.
import { startDevnet } from './start-devnet.js'

const started = performance.now()
const devnet = await startDevnet()
console.log(JSON.stringify({ networks: devnet.networks, wallets: devnet.wallets }, null, 2))
console.error(`devnet ready in ${Math.round(performance.now() - started)} ms; Ctrl-C stops it`)

const shutdown = async () => {
  await devnet.stop()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
