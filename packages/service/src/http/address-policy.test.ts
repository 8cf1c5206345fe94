import { describe, expect, test } from 'vitest'
import { classifyAddress, isAddressAllowed, toEmbeddedIpv4 } from './address-policy.js'

describe('classifyAddress', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['169.254.0.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['2002:0a00:0001::1', 'private'],
    ['::10.0.0.1', 'private'],
    ['not-an-ip', 'reserved'],
  ])('behavior: %s is refused as %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected)
  })

  test.each([
    '93.184.215.14',
    '8.8.8.8',
    '100.63.255.255',
    '100.128.0.0',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('default: public %s is allowed', (address) => {
    expect(classifyAddress(address)).toBeNull()
    expect(isAddressAllowed(address, { allowLoopback: false })).toBe(true)
  })

  test('behavior: loopback is allowed only when asked for, private never', () => {
    expect(isAddressAllowed('127.0.0.1', { allowLoopback: false })).toBe(false)
    expect(isAddressAllowed('127.0.0.1', { allowLoopback: true })).toBe(true)
    expect(isAddressAllowed('::ffff:127.0.0.1', { allowLoopback: true })).toBe(true)
    expect(isAddressAllowed('10.0.0.1', { allowLoopback: true })).toBe(false)
  })

  test('behavior: the IPv4 inside IPv6 forms is found; plain IPv6 has none', () => {
    expect(toEmbeddedIpv4('::ffff:1.2.3.4')).toBe('1.2.3.4')
    expect(toEmbeddedIpv4('64:ff9b::102:304')).toBe('1.2.3.4')
    expect(toEmbeddedIpv4('2606:4700::1111')).toBeUndefined()
    expect(toEmbeddedIpv4('::1')).toBeUndefined()
  })
})
