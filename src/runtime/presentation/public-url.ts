/**
 * The public-URL rule for `url` references (docs/protocol-0.2.md §6.7): absolute http(s),
 * no credentials, and no local, private, loopback, link-local, unspecified or
 * multicast target, IPv4 and IPv6 literals included.
 */
import { fail } from "../../check.ts";

/** Parse a dotted-quad IPv4 literal into its four octets, or `undefined`. */
function ipv4(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

function blockedIpv4(o: readonly number[]): boolean {
  const [a = 0, b = 0] = o;
  return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
}

/**
 * Parse an IPv6 literal (without brackets) into eight 16-bit groups, or
 * `undefined`. Input is a WHATWG URL hostname, which is always serialized as
 * hex groups (`[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`), never dotted.
 */
function ipv6(host: string): number[] | undefined {
  const halves = host.split("::");
  if (halves.length > 2) return undefined;
  const groups = (s: string | undefined): number[] | undefined => {
    if (s === undefined || s === "") return [];
    const out: number[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !rest) return undefined;
  let all: number[];
  if (halves.length === 2) {
    const fill = 8 - head.length - rest.length;
    if (fill < 1) return undefined;
    all = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    all = head;
  }
  return all.length === 8 ? all : undefined;
}

function blockedIpv6(g: readonly number[]): boolean {
  const at = (i: number): number => g[i] ?? 0;
  const embedded = [at(6) >> 8, at(6) & 0xff, at(7) >> 8, at(7) & 0xff];
  const zeros = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return true; // unspecified
  if (zeros(7) && at(7) === 1) return true; // loopback
  if ((at(0) & 0xfe00) === 0xfc00) return true; // unique local (private)
  if ((at(0) & 0xffc0) === 0xfe80 || (at(0) & 0xffc0) === 0xfec0) return true; // link-local, site-local
  if ((at(0) & 0xff00) === 0xff00) return true; // multicast
  if (zeros(5) && (at(5) === 0xffff || at(5) === 0)) return blockedIpv4(embedded); // IPv4-mapped / -compatible
  if (at(0) === 0x64 && at(1) === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedIpv4(embedded); // NAT64
  return false;
}

/** A `url` reference: absolute http(s), no credentials, not a local or private target. */
export function publicUrl(raw: string, path: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(path, "must be an absolute http/https URL");
  }
  // Require the explicit `scheme://` form: WHATWG also accepts `http:host`, other parsers may not.
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !/^https?:\/\//i.test(raw.trim())) {
    fail(path, "must be an absolute http/https URL");
  }
  if (url.username !== "" || url.password !== "" || /^[a-z][a-z0-9+.-]*:[\/\\]*[^\/\\?#]*@/i.test(raw.trim())) {
    fail(path, "URL must not contain credentials");
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "" || host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) {
    fail(path, `URL must not target a local host (${host || "empty"})`);
  }
  const v4 = ipv4(host);
  if (v4 && blockedIpv4(v4)) fail(path, `URL must not target a private, loopback, link-local, unspecified or multicast address (${host})`);
  if (host.startsWith("[") && host.endsWith("]")) {
    const v6 = ipv6(host.slice(1, -1));
    if (!v6 || blockedIpv6(v6)) fail(path, `URL must not target a private, loopback, link-local, unspecified or multicast address (${host})`);
  }
}
