/**
 * Whether a URL host names this machine or a network that is not the public internet. Callbacks
 * to such hosts are refused by default so a caller cannot make the gateway POST into the network
 * it runs in (request forgery against loopback services, cloud metadata, intranet hosts).
 *
 * IP literals are classified with ipaddr.js against a CLOSED list: only addresses in its
 * `unicast` range (the public remainder) pass; loopback, private, link-local, unique-local,
 * carrier-grade NAT, reserved and benchmarking (198.18/15), multicast, broadcast, unspecified,
 * Teredo and every other special range are refused. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-translated, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96,
 * 6to4 2002::/16) are judged by that IPv4 address; NAT64 local-use 64:ff9b:1::/48 is refused.
 * Odd IPv4 spellings (2130706433, 0x7f.1, 0177.0.0.1, 127.1) are normalised by the URL parser,
 * and parsed here too for hosts that did not go through it.
 *
 * Names: localhost and the suffixes of internal networks (.localhost, .local, .internal, .arpa,
 * ...) and single-label names (resolved through the host's search domains to internal hosts)
 * are refused. Other names are allowed: a public name that resolves to a private address is not
 * caught here, because Web-standard code cannot resolve DNS. DNS-level egress control (an egress
 * proxy or firewall) is the host's job.
 */
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.arpa', '.lan', '.home', '.intranet', '.corp', '.private'];

export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  if (host === '') return true;
  if (host.includes(':')) {
    // Anything that looks like IPv6 but does not parse is refused rather than guessed at.
    return !ipaddr.IPv6.isValid(host) || !isPublicV6(ipaddr.IPv6.parse(host));
  }
  if (/^[0-9a-fx.]+$/.test(host) && ipaddr.IPv4.isValid(host)) return !isPublicV4(ipaddr.IPv4.parse(host));
  if (!host.includes('.')) return true;
  return LOCAL_NAMES.has(host) || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

function isPublicV4(addr: IPv4): boolean {
  return addr.range() === 'unicast';
}

/** The IPv4 address in two 16-bit groups of an IPv6 address. */
function embeddedV4(hi: number | undefined, lo: number | undefined): IPv4 {
  const h = hi ?? 0;
  const l = lo ?? 0;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}

function isPublicV6(addr: IPv6): boolean {
  const p = addr.parts;
  switch (addr.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return isPublicV4(embeddedV4(p[6], p[7]));
    case 'rfc6052': // NAT64: the well-known prefix carries the IPv4 address; the local-use /48 is internal
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 && isPublicV4(embeddedV4(p[6], p[7]));
    case '6to4': // 2002:AABB:CCDD::/48
      return isPublicV4(embeddedV4(p[1], p[2]));
    case 'unicast':
      // IPv4-compatible ::a.b.c.d (deprecated, but parsed): judged by the IPv4 address.
      if (p.slice(0, 6).every((x) => x === 0)) return isPublicV4(embeddedV4(p[6], p[7]));
      return true;
    default:
      return false;
  }
}
