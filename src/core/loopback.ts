/**
 * True for `localhost`, `127.0.0.0/8` and `[::1]`: the only hosts plain `http://` may reach.
 * Not `*.localhost`: whether such a name resolves to loopback is up to the resolver.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
