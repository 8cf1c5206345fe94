import { BlockList, isIPv4, isIPv6 } from 'node:net'

/** Why an address may not receive outbound requests (docs/webhooks.md "Outbound HTTP"). */
export type RefusedAddressClass =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'reserved'

type Range = [address: string, prefix: number, refused: RefusedAddressClass]

const ipv4Ranges: Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  // Includes 169.254.169.254, the metadata service of the cloud providers.
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]

const ipv6Ranges: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
]

function toBlockLists(ranges: Range[], type: 'ipv4' | 'ipv6'): Map<RefusedAddressClass, BlockList> {
  const lists = new Map<RefusedAddressClass, BlockList>()
  for (const [address, prefix, refused] of ranges) {
    let list = lists.get(refused)
    if (!list) {
      list = new BlockList()
      lists.set(refused, list)
    }
    list.addSubnet(address, prefix, type)
  }
  return lists
}

const ipv4Lists = toBlockLists(ipv4Ranges, 'ipv4')
const ipv6Lists = toBlockLists(ipv6Ranges, 'ipv6')

/** Expands an IPv6 address to its eight 16-bit groups. */
function toGroups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0] ?? ''
  // A trailing dotted IPv4 (::ffff:10.0.0.1) becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number)
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16))
  const left = parse(head)
  if (tail === undefined) {
    return left
  }
  const right = parse(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

function fromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.')
}

/**
 * The IPv4 address an IPv6 address carries, if it is one of the forms that reach it: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`).
 */
export function toEmbeddedIpv4(address: string): string | undefined {
  const g = toGroups(address)
  if (g.length !== 8) {
    return undefined
  }
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0)
  if (zeros(0, 5) && g[5] === 0xffff) {
    return fromGroups(g[6] ?? 0, g[7] ?? 0)
  }
  if (zeros(0, 6) && ((g[6] ?? 0) !== 0 || (g[7] ?? 0) > 1)) {
    return fromGroups(g[6] ?? 0, g[7] ?? 0)
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) {
    return fromGroups(g[6] ?? 0, g[7] ?? 0)
  }
  if (g[0] === 0x2002) {
    return fromGroups(g[1] ?? 0, g[2] ?? 0)
  }
  return undefined
}

/**
 * The class of `address` that outbound requests must not reach (loopback, private, link-local incl.
 * 169.254.169.254, CGNAT, multicast, unspecified, reserved; IPv6 equivalents and IPv6 forms that
 * carry an IPv4 address), or null for a public address. A string that is no IP address is `reserved`.
 */
export function classifyAddress(address: string): RefusedAddressClass | null {
  if (isIPv4(address)) {
    for (const [refused, list] of ipv4Lists) {
      if (list.check(address, 'ipv4')) {
        return refused
      }
    }
    return null
  }
  if (isIPv6(address)) {
    const embedded = toEmbeddedIpv4(address)
    if (embedded !== undefined) {
      return classifyAddress(embedded)
    }
    const plain = address.split('%')[0] ?? address
    for (const [refused, list] of ipv6Lists) {
      if (list.check(plain, 'ipv6')) {
        return refused
      }
    }
    return null
  }
  return 'reserved'
}

/** Whether an outbound request may reach `address`: public addresses, and loopback when `allowLoopback`. */
export function isAddressAllowed(address: string, options: { allowLoopback: boolean }): boolean {
  const refused = classifyAddress(address)
  return refused === null || (refused === 'loopback' && options.allowLoopback)
}
