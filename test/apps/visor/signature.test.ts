/**
 * Trust beyond the checksum (docs/spec/sidecar.md §7.5), tested by attack: SSH signatures made by OpenSSH's
 * own `ssh-keygen -Y sign`, and each forged or mismatched input refused by the visor with its own reason —
 * and by `ssh-keygen -Y verify`, the independent verifier, on the same bytes. Then the visor's whole upgrade:
 * a good signature upgrades; a bad one, a missing one, or one by another key is refused with the old binary,
 * `current` and `data/` intact and nothing installed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSigningKey, readSigningKeys } from "../../../bindings/apps/visor/download/ssh-key.js";
import { SignatureError, signatureUrlOf, verifyFileSignature, type SignatureCheck } from "../../../bindings/apps/visor/download/signature.js";
import { osArch } from "../../../bindings/apps/visor/names.js";
import { expectIntact, fileServer, GENESIS_DUMMYD, newHome, removeTempDirs, runVisorIn, seal, sha256, tarBuffer, tempDir } from "./helpers.js";

const dir = tempDir("xupgrade-sig-");
const NS = "file";

function sh(cmd: string, args: string[], input?: Buffer | string): { code: number; out: string } {
  const r = spawnSync(cmd, args, { input, encoding: "utf8" });
  if (r.error) throw new Error(`${cmd} could not run (${r.error.message}): install OpenSSH's client (Debian: openssh-client)`);
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** A fresh key pair from ssh-keygen; returns the private key path and the public key line. */
function keygen(name: string, type = "ed25519"): { key: string; pub: string } {
  const key = join(dir, name);
  const r = sh("ssh-keygen", ["-q", "-t", type, ...(type === "rsa" ? ["-b", "2048"] : []), "-N", "", "-C", `${name}@release`, "-f", key]);
  expect(r.code, r.out).toBe(0);
  return { key, pub: readFileSync(`${key}.pub`, "utf8").trim() };
}

/** `ssh-keygen -Y sign` of `file`; returns the armored signature text. */
function sign(key: string, file: string, o: { ns?: string; hashalg?: string } = {}): string {
  const r = sh("ssh-keygen", ["-Y", "sign", "-f", key, "-n", o.ns ?? NS, ...(o.hashalg ? ["-O", `hashalg=${o.hashalg}`] : []), file]);
  expect(r.code, r.out).toBe(0);
  const text = readFileSync(`${file}.sig`, "utf8");
  return text;
}

/** OpenSSH's verdict on the same inputs: allowed_signers with `pub` as principal `release`. */
function opensshAccepts(file: string, sigText: string, pub: string, ns = NS): boolean {
  const allowed = join(dir, `allowed-${Math.random().toString(36).slice(2)}`);
  writeFileSync(allowed, `release ${pub}\n`);
  const sigFile = join(dir, `sig-${Math.random().toString(36).slice(2)}`);
  writeFileSync(sigFile, sigText);
  // The message comes from the file through the shell: ssh-keygen may refuse before reading stdin (no EPIPE then).
  return sh("sh", ["-c", 'exec ssh-keygen -Y verify -f "$1" -I release -n "$2" -s "$3" < "$4"', "sh", allowed, ns, sigFile, file]).code === 0;
}

/** Ours: the key that signed, or the failed check. */
async function ours(file: string, sigText: string, pub: string, ns = NS): Promise<"ok" | SignatureCheck> {
  try {
    await verifyFileSignature(file, sigText, [parseSigningKey(pub)], ns);
    return "ok";
  } catch (e) {
    if (e instanceof SignatureError) return e.check;
    throw e;
  }
}

let release: { key: string; pub: string };
let other: { key: string; pub: string };
let rsa: { key: string; pub: string };
let payload: string;
let good: string;

beforeAll(() => {
  release = keygen("release");
  other = keygen("other");
  rsa = keygen("rsa", "rsa");
  payload = join(dir, "app.tar.gz");
  writeFileSync(payload, tarBuffer([{ name: "bin/dummyd", body: "#!/bin/sh\necho signed v2\n", mode: 0o755 }]));
  good = sign(release.key, payload);
}, 60_000);

afterAll(() => removeTempDirs());

/** Flips one byte of the decoded signature blob at `offsetFromEnd` and re-armors it. */
function flipBlob(text: string, offsetFromEnd: number): string {
  const lines = text.trim().split("\n");
  const blob = Buffer.from(lines.slice(1, -1).join(""), "base64");
  blob[blob.length - offsetFromEnd] ^= 0x01;
  const b64 = blob
    .toString("base64")
    .match(/.{1,70}/g)!
    .join("\n");
  return `${lines[0]}\n${b64}\n${lines[lines.length - 1]}\n`;
}

describe("SSH signatures: the visor and ssh-keygen -Y verify agree on every input", () => {
  it("a signature by the release key verifies (sha512, ssh-keygen's default, and sha256)", async () => {
    expect(await ours(payload, good, release.pub)).toBe("ok");
    expect(opensshAccepts(payload, good, release.pub)).toBe(true);
    const copy = join(dir, "copy-256.tar.gz");
    writeFileSync(copy, readFileSync(payload));
    const s256 = sign(release.key, copy, { hashalg: "sha256" });
    expect(await ours(copy, s256, release.pub)).toBe("ok");
    expect(opensshAccepts(copy, s256, release.pub)).toBe(true);
  });

  const forgeries: [string, () => { file: string; sig: string; pub?: string; ns?: string }, SignatureCheck][] = [
    [
      "the file changed after signing (one byte)",
      () => {
        const f = join(dir, "tampered.tar.gz");
        const b = readFileSync(payload);
        b[b.length - 1] ^= 0xff;
        writeFileSync(f, b);
        return { file: f, sig: good };
      },
      "signature",
    ],
    ["one bit of the signature flipped", () => ({ file: payload, sig: flipBlob(good, 5) }), "signature"],
    [
      "signed by another ed25519 key",
      () => {
        const f = join(dir, "other.tar.gz");
        writeFileSync(f, readFileSync(payload));
        return { file: f, sig: sign(other.key, f) };
      },
      "signer",
    ],
    [
      "signed by an RSA key",
      () => {
        const f = join(dir, "rsa.tar.gz");
        writeFileSync(f, readFileSync(payload));
        return { file: f, sig: sign(rsa.key, f) };
      },
      "signer",
    ],
    [
      "signed in another namespace",
      () => {
        const f = join(dir, "ns.tar.gz");
        writeFileSync(f, readFileSync(payload));
        return { file: f, sig: sign(release.key, f, { ns: "git" }) };
      },
      "namespace",
    ],
    [
      "the signature of another file",
      () => {
        const f = join(dir, "else.tar.gz");
        writeFileSync(f, "something else");
        sign(release.key, f);
        return { file: payload, sig: readFileSync(`${f}.sig`, "utf8") };
      },
      "signature",
    ],
    ["armor cut short", () => ({ file: payload, sig: good.split("\n").slice(0, 3).join("\n") }), "armor"],
    [
      "a truncated blob",
      () => {
        const lines = good.trim().split("\n");
        const blob = Buffer.from(lines.slice(1, -1).join(""), "base64").subarray(0, 40);
        return { file: payload, sig: `${lines[0]}\n${blob.toString("base64")}\n${lines[lines.length - 1]}\n` };
      },
      "format",
    ],
    ["not a signature at all (an HTML error page)", () => ({ file: payload, sig: "<html>404</html>" }), "armor"],
  ];

  for (const [what, make, check] of forgeries) {
    it(`refused: ${what} (${check})`, async () => {
      const { file, sig, pub = release.pub, ns = NS } = make();
      expect(await ours(file, sig, pub, ns)).toBe(check);
      expect(opensshAccepts(file, sig, pub, ns)).toBe(false);
    });
  }

  it("release keys: inline, comma-separated, a file, allowed_signers lines; other types are refused by name", () => {
    expect(readSigningKeys(release.pub)).toHaveLength(1);
    expect(readSigningKeys(`${release.pub},${other.pub}`).map((k) => k.comment)).toEqual(["release@release", "other@release"]);
    const file = join(dir, "keys");
    writeFileSync(file, `# release keys\n\nrelease ${release.pub}\n${other.pub}\n`);
    expect(readSigningKeys(file)).toHaveLength(2);
    expect(() => readSigningKeys(rsa.pub)).toThrow("unsupported key type ssh-rsa: only ssh-ed25519 keys are supported");
    expect(() => readSigningKeys("ssh-ed25519 AAAA!!")).toThrow("not base64");
    expect(() => readSigningKeys(join(dir, "missing"))).toThrow("no such file or directory");
  });

  it("the signature is looked for at the binary's URL + .sig, without its query", () => {
    expect(signatureUrlOf("https://example.org/r/app.tar.gz?checksum=sha256:ab")).toBe("https://example.org/r/app.tar.gz.sig");
    expect(signatureUrlOf("file:///srv/app?checksum=sha256:ab")).toBe("file:///srv/app.sig");
  });
});

describe("the visor's upgrade with DAEMON_DOWNLOAD_SIGNING_KEYS", () => {
  async function upgradeWith(sigBody: Buffer | undefined, keys: string) {
    const files = new Map<string, Buffer>([["app.tar.gz", readFileSync(payload)]]);
    if (sigBody) files.set("app.tar.gz.sig", sigBody);
    const srv = await fileServer(files);
    try {
      const h = await newHome(GENESIS_DUMMYD);
      const infoUrl = `${srv.url}/app.tar.gz?checksum=sha256:${sha256(readFileSync(payload))}`;
      // The node stand-in halts at once: it writes the plan (with this info) and exits 20, as the devnet does.
      const plan = JSON.stringify({ name: "chain2", height: 49, info: JSON.stringify({ binaries: { [osArch()]: infoUrl } }) });
      writeFileSync(
        join(h.home, "cosmovisor/genesis/bin/dummyd"),
        `#!/bin/sh\necho Genesis\nprintf '%s' '${plan}' > "${join(h.home, "data/upgrade-info.json")}"\nexit 20\n`,
      );
      writeFileSync(join(h.home, "data/upgrade-info.json"), plan, { mode: 0o644 });
      const before = seal(h);
      const r = await runVisorIn(h, [], {
        DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
        DAEMON_DOWNLOAD_SIGNING_KEYS: keys,
        UNSAFE_SKIP_BACKUP: "true",
        DAEMON_RESTART_AFTER_UPGRADE: "false",
      });
      return { h, before, r };
    } finally {
      await srv.close();
    }
  }

  it("a good signature: verified, then unpacked and switched", async () => {
    const { h, r } = await upgradeWith(Buffer.from(good), release.pub);
    expect(r.error, r.logs).toBeUndefined();
    expect(r.code).toBe(0);
    expect(r.logs).toContain("signature verified");
    expect(readlinkSync(join(h.home, "cosmovisor/current"))).toBe("upgrades/chain2");
  });

  for (const [what, sig, keys, reason] of [
    [
      "a signature by another key",
      () =>
        Buffer.from(
          sign(
            other.key,
            (() => {
              const f = join(dir, "o2.tar.gz");
              writeFileSync(f, readFileSync(payload));
              return f;
            })(),
          ),
        ),
      () => release.pub,
      "signer: signed by the ssh-ed25519 key",
    ],
    ["a corrupted signature", () => Buffer.from(flipBlob(good, 5)), () => release.pub, "signature: the ssh-ed25519 signature does not verify"],
    ["no signature next to the binary (404)", () => undefined, () => release.pub, "cannot download the signature"],
  ] as const) {
    it(`refused: ${what}; the old binary, current and data/ intact, nothing installed`, async () => {
      const { h, before, r } = await upgradeWith(sig(), keys());
      expect(r.error).toContain("the downloaded binary's signature is refused:");
      expect(r.error).toContain(reason);
      expectIntact(h, before, "chain2");
      expect(existsSync(join(h.home, "cosmovisor/upgrades/chain2"))).toBe(false);
    });
  }
});
