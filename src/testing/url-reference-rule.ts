/**
 * The test host's rule for a presentation reference of kind `url`
 * (docs/protocol-0.2.md §6.7): an absolute `http://` or `https://` URL with
 * no credentials whose host is neither a local name (`localhost`,
 * `*.localhost`, `*.local`) nor an IP literal that is unspecified, loopback,
 * private, link-local or multicast (IPv4 inside IPv6 judged as IPv4). The
 * ranges are listed at each test below.
 */

/** What is wrong with `raw` as a public URL, or undefined. */
export function urlReferenceProblem(raw: string): string | undefined {
  const scheme = /^(https?):\/\/([^/?#]*)/i.exec(raw);
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!scheme || !url) return "is not an absolute http or https URL";
  if (scheme[2]!.includes("@") || url.username !== "" || url.password !== "") return "carries credentials";
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "" || host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) return `targets the local name ${host || "(empty)"}`;
  const octets = host.startsWith("[") ? v4InV6(v6Groups(host.slice(1, -1))) : v4Octets(host);
  const groups = host.startsWith("[") ? v6Groups(host.slice(1, -1)) : undefined;
  if ((octets && !publicV4(octets)) || (groups && !octets && !publicV6(groups))) return `targets the non-public address ${host}`;
  return undefined;
}

function v4Octets(host: string): number[] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  return match ? match.slice(1).map(Number) : undefined;
}

/**
 * Outside 0/8 (unspecified), 127/8 (loopback), 10/8, 172.16/12, 192.168/16
 * and the shared 100.64/10 (private), 169.254/16 (link-local) and 224/3
 * (multicast, and the reserved and broadcast range above it).
 */
function publicV4([a = 0, b = 0]: number[]): boolean {
  const privateRange = a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  return !(a === 0 || a === 127 || privateRange || (a === 169 && b === 254) || a >= 224);
}

/** Eight 16-bit groups of an IPv6 literal as the URL parser writes it (`::` compressed, hex only). */
function v6Groups(literal: string): number[] | undefined {
  const [head, tail, extra] = literal.split("::");
  if (extra !== undefined) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const groups = tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`) or NAT64 (`64:ff9b::a.b.c.d`) IPv6 literal. */
function v4InV6(groups: number[] | undefined): number[] | undefined {
  if (!groups) return undefined;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  const mapped = groups.slice(0, 5).every((g) => g === 0) && (groups[5] === 0xffff || (groups[5] === 0 && groups[6] !== 0));
  if (!nat64 && !mapped) return undefined; // :: and ::1 are IPv6's own
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff];
}

function publicV6(groups: number[]): boolean {
  const [first] = groups as [number];
  const unspecifiedOrLoopback = groups.slice(0, 7).every((g) => g === 0) && groups[7]! <= 1;
  const uniqueLocal = (first & 0xfe00) === 0xfc00;
  const linkLocal = (first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0; // fec0::/10, the old site-local, counts as private
  const multicast = (first & 0xff00) === 0xff00;
  return !(unspecifiedOrLoopback || uniqueLocal || linkLocal || multicast);
}
