/**
 * A tiny read-only npm registry on 127.0.0.1 (Bun.serve): a packument per
 * package and its tarballs from files, enough for `npm view` and `npm pack`.
 * Starts in milliseconds and serves a 50 MB tarball without Verdaccio's
 * base64 publish; it records every request, and a package's `integrity` can
 * be made to lie (to prove that clients check it).
 */
import { basename } from "node:path";

export interface StaticPackage {
  name: string;
  version: string;
  /** The `.tgz` file served as this version's tarball. */
  tarball: string;
  /** `dist.integrity` in the packument: the tarball's sha512 by default, `null` to leave it out, or any other string. */
  integrity?: string | null;
}

export interface StaticRegistry {
  /** Base URL with a trailing slash. */
  url: string;
  /** Every request's method and decoded path, in order. */
  requests: string[];
  stop(): void;
}

/** Serve `packages` on 127.0.0.1 until `stop()`. */
export async function serveStaticRegistry(packages: StaticPackage[]): Promise<StaticRegistry> {
  const requests: string[] = [];
  const byName = new Map<string, StaticPackage[]>();
  for (const pkg of packages) byName.set(pkg.name, [...(byName.get(pkg.name) ?? []), pkg]);
  const integrities = new Map<StaticPackage, string | null>();
  for (const pkg of packages) {
    integrities.set(pkg, pkg.integrity !== undefined ? pkg.integrity : `sha512-${new Bun.CryptoHasher("sha512").update(await Bun.file(pkg.tarball).arrayBuffer()).digest("base64")}`);
  }
  const server: Bun.Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request): Response {
      const path = decodeURIComponent(new URL(request.url).pathname);
      requests.push(`${request.method} ${path}`);
      const tarball = /^\/(.+)\/-\/([^/]+\.tgz)$/.exec(path);
      if (tarball) {
        const pkg = byName.get(tarball[1]!)?.find((p) => fileName(p) === tarball[2]);
        return pkg ? new Response(Bun.file(pkg.tarball)) : new Response("not found", { status: 404 });
      }
      const versions = byName.get(path.slice(1));
      if (!versions) return Response.json({ error: "not found" }, { status: 404 });
      const name = path.slice(1);
      const base: string = `http://127.0.0.1:${server.port}/`;
      return Response.json({
        _id: name,
        name,
        "dist-tags": { latest: versions.at(-1)!.version },
        versions: Object.fromEntries(
          versions.map((p) => {
            const integrity = integrities.get(p);
            return [p.version, { name, version: p.version, dist: { tarball: `${base}${name}/-/${fileName(p)}`, ...(integrity === null ? {} : { integrity }) } }];
          }),
        ),
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, requests, stop: () => void server.stop(true) };
}

function fileName(pkg: StaticPackage): string {
  return `${basename(pkg.name)}-${pkg.version}.tgz`;
}
