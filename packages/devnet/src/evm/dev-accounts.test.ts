import { privateKeyToAddress } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { deriveAnvilAccount, getAnvilAccounts } from './dev-accounts.js'

describe('getAnvilAccounts', () => {
  test("default: the known keys match their addresses and anvil's first account", () => {
    const accounts = getAnvilAccounts(10)
    expect(accounts[0]?.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    for (const account of accounts) {
      expect(privateKeyToAddress(account.privateKey)).toBe(account.address)
    }
    expect(new Set(accounts.map((a) => a.address)).size).toBe(10)
  })

  test('behavior: accounts past the table are derived from the mnemonic like the table entries', () => {
    expect(deriveAnvilAccount(9)).toEqual(getAnvilAccounts(10)[9])
    const [eleventh] = getAnvilAccounts(11).slice(10)
    expect(eleventh?.address).toBe('0xBcd4042DE499D14e55001CcbB24a551F3b954096')
    expect(eleventh?.privateKey).toBe('0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897')
  })
})
