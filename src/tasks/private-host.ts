/**
 * Whether a URL host names this machine or a private network. Callbacks to such hosts are refused
 * by default so a caller cannot make the gateway POST into the network it runs in. (A public name
 * that resolves to a private address is not caught here: Web-standard code cannot resolve DNS;
 * put an egress proxy in front for that.)
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local')) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) return isPrivateV4(v4.slice(1).map(Number));
  if (host.includes(':')) {
    if (host === '::' || host === '::1') return true;
    const mapped = /^::ffff:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
    if (mapped) return isPrivateV4(mapped.slice(1).map(Number));
    return /^(fc|fd|fe8|fe9|fea|feb)/.test(host);
  }
  return false;
}

function isPrivateV4([a = 0, b = 0]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}
