/**
 * Whether a host name or address names this machine by loopback only (`localhost`, `127.x.y.z`,
 * `::1`, `[::1]`); `0.0.0.0`, `::` and every other name reach beyond it.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase()
  return name === 'localhost' || name === '::1' || name === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(name)
}
