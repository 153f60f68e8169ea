/**
 * A hostile host's transfer directory (docs/api-0.4.md "Bulk objects", issue
 * 23 item 6), process level: a directory that is not the runtime's own and
 * private (group or other access, a symlink, another owner) is refused at
 * initialize with one warning line on stderr, and files are opened relative
 * to the directory opened then, so swapping the path afterwards reaches
 * nothing else. In each case a victim file is offered as the locator and must
 * stay unchanged. Fixture: test/fixtures/values/.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { TestHost, temporaryDirectory } from "octet-extension/testing";

type Obj = Record<string, unknown>;
const DIR = new URL("../fixtures/values/values-v04", import.meta.url).pathname;
const VICTIM = "authorized_keys";
const ORIGINAL = "ssh-ed25519 AAAA… author@laptop\n";

/** A directory holding the victim file, with `mode`. */
function victimDirectory(mode: number): string {
  const dir = `${temporaryDirectory("octet-hostile-")}/ssh`;
  mkdirSync(dir);
  writeFileSync(`${dir}/${VICTIM}`, ORIGINAL);
  chmodSync(dir, mode);
  return dir;
}

/** Start the fixture and initialize it with `transferDirectory` offered; every bulk/write names the victim. */
async function offered(transferDirectory: string): Promise<{ host: TestHost; features: string[] }> {
  const host = await TestHost.start(DIR, { bulk: true });
  const base = host.initializeParams();
  const protocol = base.protocol as Obj;
  const result = await host.initialize({ ...base, protocol: { ...protocol, bulk_objects_v1: { ...(protocol.bulk_objects_v1 as Obj), transfer_directory: transferDirectory } } });
  host.onRequest("bulk/write", (params) => ({ ticket: "t-evil", profile: "local-file.v1", locator: VICTIM, capacity: params.capacity }));
  host.onRequest("bulk/release", () => ({ released: true }));
  return { host, features: (result.protocol as Obj).features as string[] };
}

/** Poll `condition` (stderr trails stdout) for up to 5 s. */
async function eventually(condition: () => boolean): Promise<void> {
  for (const end = Date.now() + 5_000; !condition() && Date.now() < end; ) await Bun.sleep(10);
}

/** The runtime's warning records about the bulk offer. */
const bulkWarnings = (host: TestHost) => host.stderr.filter((line) => line.includes("bulk_objects_v1")).map((line) => JSON.parse(line) as Obj);

async function expectRefused(transferDirectory: string, victim: string, reason: RegExp): Promise<void> {
  const { host, features } = await offered(transferDirectory);
  const publish = (await host.callTool("blob_publish", { text: "ssh-rsa ATTACKER\n" })) as { content: { text: string }[] };
  const outcome = { selected: features.includes("bulk_objects_v1"), publish: publish.content[0]!.text, victim: readFileSync(victim, "utf8") };
  expect(outcome).toEqual({ selected: false, publish: "ext.bulk.publish() needs the bulk_objects_v1 feature, which was not negotiated (API 0.4): the host's transfer directory was refused (see the warning logged at initialize)", victim: ORIGINAL });
  expect(await host.shutdown()).toBe(0);
  await eventually(() => bulkWarnings(host).length > 0);
  const warnings = bulkWarnings(host);
  expect(warnings).toEqual([{ level: "warning", message: "bulk_objects_v1 not selected: refusing the host's transfer directory", transfer_directory: transferDirectory, reason: expect.stringMatching(reason) }]);
}

describe("the transfer directory at initialize", () => {
  test("a directory with group or other access is refused (feature not selected, victim unchanged, one warning)", async () => {
    for (const mode of [0o755, 0o770, 0o701]) {
      const dir = victimDirectory(mode);
      await expectRefused(dir, `${dir}/${VICTIM}`, new RegExp(`^it is accessible to group or others \\(mode 0${mode.toString(8)}\\); it must be private \\(0700\\)$`));
    }
  });

  test("a symlink to a directory (private or not) is refused", async () => {
    for (const mode of [0o755, 0o700]) {
      const dir = victimDirectory(mode);
      const link = `${temporaryDirectory("octet-hostile-")}/link`;
      symlinkSync(dir, link);
      await expectRefused(link, `${dir}/${VICTIM}`, /^it is a symbolic link$/);
    }
  });

  test("a directory owned by another user is refused", async () => {
    // As root, a private directory handed to uid 65534; otherwise "/", which root owns.
    const root = process.getuid!() === 0;
    const dir = root ? victimDirectory(0o700) : "/";
    if (root) chownSync(dir, 65534, 65534);
    await expectRefused(dir, root ? `${dir}/${VICTIM}` : "/etc/hostname", new RegExp(`^it is owned by uid ${root ? 65534 : 0}, not by this process \\(uid ${process.getuid!()}\\)$`));
  });

  test("a path that is not a directory, or missing, is refused", async () => {
    const dir = victimDirectory(0o700);
    await expectRefused(`${dir}/${VICTIM}`, `${dir}/${VICTIM}`, /^it is not a directory$/);
    await expectRefused(`${dir}/missing`, `${dir}/${VICTIM}`, /^cannot examine it \(ENOENT\)$/);
  });

  test("a private directory of ours is selected and used (the test host's own)", async () => {
    const host = await TestHost.start(DIR, { bulk: true });
    const { statSync } = await import("node:fs");
    const stat = statSync(host.bulk!.directory);
    expect({ mode: stat.mode & 0o777, uid: stat.uid }).toEqual({ mode: 0o700, uid: process.getuid!() });
    expect(((await host.initialize()).protocol as Obj).features).toContain("bulk_objects_v1");
    expect(((await host.callTool("blob_publish", { text: "fine" })) as { is_error: boolean }).is_error).toBe(false);
    expect(await host.shutdown()).toBe(0);
    expect(bulkWarnings(host)).toEqual([]);
  });
});

describe("files are opened relative to the directory opened at initialize", () => {
  test("the path swapped for a symlink after initialize reaches nothing else: the write is refused, the victim unchanged", async () => {
    const dir = victimDirectory(0o700);
    const victim = `${dir}/${VICTIM}`;
    const transfer = `${temporaryDirectory("octet-transfer-")}/transfer`;
    mkdirSync(transfer, { mode: 0o700 });
    const { host, features } = await offered(transfer);
    expect(features).toContain("bulk_objects_v1");
    // The host moves the directory the runtime accepted and puts a symlink to the victim's in its place.
    renameSync(transfer, `${transfer}.moved`);
    symlinkSync(dir, transfer);
    const publish = (await host.callTool("blob_publish", { text: "ssh-rsa ATTACKER\n" })) as { content: { text: string }[]; is_error: boolean };
    expect({ is_error: publish.is_error, text: publish.content[0]!.text, victim: readFileSync(victim, "utf8") }).toEqual({
      is_error: true,
      text: "storage_unavailable: cannot open the transfer file (ENOENT)",
      victim: ORIGINAL,
    });
    expect(await host.shutdown()).toBe(0);
  });
});

describe("TransferDirectory without /proc (the portable fallback)", () => {
  test("an entry opens while the path names the directory held open; once it is swapped for a symlink, opening is refused", async () => {
    const { TransferDirectory } = await import("../../src/runtime/transfer-directory.ts");
    const { closeSync, constants } = await import("node:fs");
    const dir = victimDirectory(0o700);
    const transfer = `${temporaryDirectory("octet-transfer-")}/transfer`;
    mkdirSync(transfer, { mode: 0o700 });
    writeFileSync(`${transfer}/${VICTIM}`, "host's file");
    const held = TransferDirectory.open(transfer, false);
    if (!(held instanceof TransferDirectory)) throw new Error(`refused: ${held.refused}`);
    closeSync(held.openEntry(VICTIM, constants.O_RDONLY));
    renameSync(transfer, `${transfer}.moved`);
    symlinkSync(dir, transfer);
    expect(() => held.openEntry(VICTIM, constants.O_WRONLY)).toThrow("the transfer directory was replaced");
    expect(readFileSync(`${dir}/${VICTIM}`, "utf8")).toBe(ORIGINAL);
  });
});
