import { expect, test } from 'vitest'
import { createSandboxScreening } from './create-sandbox-screening.js'

test('default: the address steers the sandbox screening answer', async () => {
  const { screen } = createSandboxScreening()
  const cases: [string, string][] = [
    ['0x000000000000000000000000000000000000dEaD', 'failed'],
    ['0x1234deadbeef', 'failed'],
    ['0x12340000BEEF', 'pending'],
    ['7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU', 'passed'],
    ['0x8ba1f109551bD432803012645Ac136ddd64DBA72', 'passed'],
  ]
  for (const [address, expected] of cases) {
    expect(await screen({ chain: 'ethereum', address }), address).toBe(expected)
  }
})
