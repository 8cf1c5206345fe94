// `npm run devnet`: start the local chains alone and print the networks part of the manifest.
import { startDevnet } from './start-devnet.js'

const devnet = await startDevnet()
console.log(JSON.stringify({ networks: devnet.networks, wallets: devnet.wallets }, null, 2))
console.error('devnet ready; Ctrl-C stops it')

const shutdown = async () => {
  await devnet.stop()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
