/**
 * `@tollgate/facilitator/devnet`: the facilitator wired to a running local devnet, for the sandbox,
 * examples and end-to-end tests. Not for production: use the CLI's configuration file there.
 *
 * @module
 */
export type { CreateDevnetFacilitatorOptions } from './create-devnet-facilitator.js'
export {
  createDevnetFacilitator,
  getDevnetAssets,
  getDevnetNetworkSettings,
} from './create-devnet-facilitator.js'
