import type { Screening } from '../types.js'

/**
 * Sandbox AML screening, steered by the address (case-insensitive): one containing `dead` is
 * `failed`, one ending in `beef` is `pending`, anything else `passed` (`0x…deadbeef` fails: the
 * `dead` rule comes first). See docs/rails-fiat.md "Screening".
 */
export function createSandboxScreening(): Screening {
  return {
    screen: async ({ address }) => {
      const lower = address.toLowerCase()
      if (lower.includes('dead')) {
        return 'failed'
      }
      return lower.endsWith('beef') ? 'pending' : 'passed'
    },
  }
}
