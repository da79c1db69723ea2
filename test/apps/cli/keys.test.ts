/** The keyring through the real CLI: both backends, round trips, passphrases, bad input. */
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_KEY, errorLine, removeTempDirs, runCli, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const ABANDON = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ABANDON_ADDRESS = "cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4"; // m/44'/118'/0'/0/0
const TEST_PUBKEY_JSON = '{"@type":"/cosmos.crypto.secp256k1.PubKey","key":"A/drTFNNQxBfioovWCtA+Qi4GKcFJZH/Oq7UIkwWHny0"}';

const offlineVote = (home: string, from: string, extra: string[] = []) => [
  "tx",
  "gov",
  "vote",
  "1",
  "yes",
  "--from",
  from,
  "--home",
  home,
  "--offline",
  "--chain-id",
  "c",
  "--account-number",
  "0",
  "--sequence",
  "0",
  "--yes",
  "-o",
  "json",
  ...extra,
];

describe("test backend (unencrypted)", () => {
  it("import-hex, show, list, add, recover, delete", async () => {
    const home = tempDir();
    const kb = ["--keyring-backend", "test", "--home", home];

    const imported = await runCli(["keys", "import-hex", "val", "0x" + TEST_KEY.privkey.toUpperCase(), ...kb]);
    expect(imported.code).toBe(0);
    // go-yaml single-quotes the pubkey JSON, as the SDK's `keys show` prints it.
    expect(imported.stdout).toBe(`address: ${TEST_KEY.address}\nname: val\npubkey: '${TEST_PUBKEY_JSON}'\ntype: local\n`);

    const dir = join(home, "keyring-test");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "val.json")).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, "val.json"), "utf8")).privkey).toBe(TEST_KEY.privkey);

    const shown = await runCli(["keys", "show", TEST_KEY.address, "-o", "json", ...kb]);
    expect(shown.stdout).toBe(JSON.stringify({ name: "val", type: "local", address: TEST_KEY.address, pubkey: TEST_PUBKEY_JSON }) + "\n");
    expect((await runCli(["keys", "show", "val", "-a", ...kb])).stdout).toBe(TEST_KEY.address + "\n");
    expect((await runCli(["keys", "show", "val", "-p", ...kb])).stdout).toBe(TEST_PUBKEY_JSON + "\n");

    const added = await runCli(["keys", "add", "fresh", "-o", "json", ...kb]);
    expect(added.code).toBe(0);
    const fresh = JSON.parse(added.stdout) as { address: string; mnemonic: string };
    expect(fresh.mnemonic.split(" ")).toHaveLength(24);

    const addedText = await runCli(["keys", "add", "fresh2", ...kb]);
    expect(addedText.stdout).toMatch(/^address: cosmos1[0-9a-z]{38}\nname: fresh2\n/);
    expect(addedText.stderr).toMatch(/\*\*Important\*\* write this mnemonic phrase in a safe place\.[\s\S]*\n(\w+ ){23}\w+\n$/);

    // The new mnemonic recovers the same key.
    const recovered = await runCli(["keys", "add", "again", "--recover", "-o", "json", ...kb, "--keyring-dir", tempDir()], { input: fresh.mnemonic + "\n" });
    expect(recovered.code).toBe(0);
    expect(JSON.parse(recovered.stdout).address).toBe(fresh.address);

    const abandon = await runCli(["keys", "add", "abandon", "--recover", "-o", "json", ...kb], { input: ABANDON + "\n" });
    expect(JSON.parse(abandon.stdout).address).toBe(ABANDON_ADDRESS);

    const list = await runCli(["keys", "list", "-o", "json", ...kb]);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((k) => k.name)).toEqual(["abandon", "fresh", "fresh2", "val"]);

    // The imported key signs (offline) without a passphrase.
    expect((await runCli(offlineVote(home, "val", ["--keyring-backend", "test"]))).code).toBe(0);

    expect((await runCli(["keys", "delete", "fresh", ...kb], { input: "n\n" })).code).toBe(1);
    const del = await runCli(["keys", "delete", "fresh", "-y", ...kb]);
    expect(del.code).toBe(0);
    expect(del.stderr).toBe("Key deleted forever (uh oh!)\n");
    expect(errorLine(await runCli(["keys", "show", "fresh", ...kb]))).toBe(`key "fresh" not found in the test keyring at ${dir}`);
    expect(readdirSync(dir).sort()).toEqual(["abandon.json", "fresh2.json", "val.json"]);
  }, 120_000);

  it("refuses bad input with one line", async () => {
    const home = tempDir();
    const kb = ["--keyring-backend", "test", "--home", home];
    expect(errorLine(await runCli(["keys", "add", "x", "--recover", ...kb], { input: "abandon abandon\n" }))).toBe(
      "invalid mnemonic: expected 12, 15, 18, 21 or 24 words, got 2",
    );
    expect(errorLine(await runCli(["keys", "add", "x", "--recover", ...kb], { input: ABANDON.replace("about", "zzzz") + "\n" }))).toBe(
      'invalid mnemonic: "zzzz" is not a BIP-39 English word',
    );
    expect(errorLine(await runCli(["keys", "add", "x", "--recover", ...kb], { input: ABANDON.replace("about", "abandon") + "\n" }))).toBe(
      "invalid mnemonic: checksum mismatch (a word is wrong or the words are out of order)",
    );
    expect(errorLine(await runCli(["keys", "add", "x", "--recover", ...kb]))).toBe("no mnemonic given (end of input)");
    expect(errorLine(await runCli(["keys", "import-hex", "x", "abcd", ...kb]))).toBe("invalid private key: expected 64 hexadecimal digits");
    expect(errorLine(await runCli(["keys", "import-hex", "x", "0".repeat(64), ...kb]))).toMatch(/^invalid private key: /);
    expect((await runCli(["keys", "import-hex", "x", TEST_KEY.privkey, ...kb])).code).toBe(0);
    expect(errorLine(await runCli(["keys", "import-hex", "x", "11".repeat(32), ...kb]))).toBe(
      'key "x" already exists in the test keyring; delete it first or choose another name',
    );
    expect(errorLine(await runCli(["keys", "import-hex", "y", TEST_KEY.privkey, ...kb]))).toBe(`a key with address ${TEST_KEY.address} already exists as "x"`);
    expect(errorLine(await runCli(["keys", "show", "x", "-a", "-p", ...kb]))).toBe("the --address and --pubkey flags are mutually exclusive");
  }, 120_000);
});

describe("file backend (scrypt + AES-256-GCM)", () => {
  it("round trip with a passphrase file, the environment or stdin; wrong passphrases refused", async () => {
    const home = tempDir();
    const pass = join(home, "pass");
    writeFileSync(pass, "correct horse battery staple\n");
    const wrong = join(home, "wrong");
    writeFileSync(wrong, "not the passphrase\n");
    const kb = ["--keyring-backend", "file", "--home", home];

    const added = await runCli(["keys", "import-hex", "val", TEST_KEY.privkey, "--passphrase-file", pass, "-o", "json", ...kb]);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout).address).toBe(TEST_KEY.address);
    const rec = readFileSync(join(home, "keyring-file", "val.json"), "utf8");
    expect(rec).not.toContain(TEST_KEY.privkey);
    expect(JSON.parse(rec).sealed).toMatchObject({ kdf: "scrypt", cipher: "aes-256-gcm" });
    expect(statSync(join(home, "keyring-file", "val.json")).mode & 0o777).toBe(0o600);

    // Public data needs no passphrase.
    expect((await runCli(["keys", "show", "val", "-a", ...kb])).stdout).toBe(TEST_KEY.address + "\n");

    // Signing needs it: from the file, the environment, or a line of stdin.
    const ok = await runCli(offlineVote(home, "val", [...kb.slice(0, 2), "--passphrase-file", pass]));
    expect(ok.code).toBe(0);
    const viaEnv = await runCli(offlineVote(home, "val", kb.slice(0, 2)), { env: { XUPGRADE_KEYRING_PASSPHRASE: "correct horse battery staple" } });
    expect(viaEnv.stdout).toBe(ok.stdout);
    const viaStdin = await runCli(offlineVote(home, "val", kb.slice(0, 2)), { input: "correct horse battery staple\n" });
    expect(viaStdin.stdout).toBe(ok.stdout);
    expect(viaStdin.stderr).toBe("Enter keyring passphrase: \n");

    expect(errorLine(await runCli(offlineVote(home, "val", [...kb.slice(0, 2), "--passphrase-file", wrong])))).toBe(
      `incorrect passphrase for the file keyring at ${join(home, "keyring-file")}`,
    );
    // A second key must use the keyring's passphrase.
    expect(errorLine(await runCli(["keys", "add", "other", "--passphrase-file", wrong, ...kb]))).toBe(
      `incorrect passphrase for the file keyring at ${join(home, "keyring-file")}`,
    );
    const second = await runCli(["keys", "add", "other", "--recover", "--passphrase-file", pass, "-o", "json", ...kb], { input: ABANDON + "\n" });
    expect(JSON.parse(second.stdout).address).toBe(ABANDON_ADDRESS);

    // A tampered record does not open.
    const path = join(home, "keyring-file", "other.json");
    const doc = JSON.parse(readFileSync(path, "utf8"));
    const ct = Buffer.from(doc.sealed.ciphertext, "base64");
    ct[0] ^= 1;
    doc.sealed.ciphertext = ct.toString("base64");
    writeFileSync(path, JSON.stringify(doc));
    expect(errorLine(await runCli(offlineVote(home, "other", [...kb.slice(0, 2), "--passphrase-file", pass])))).toBe('incorrect passphrase for key "other"');
  }, 120_000);

  it("a new keyring needs a passphrase of at least 8 characters", async () => {
    const home = tempDir();
    const r = await runCli(["keys", "add", "a", "--keyring-backend", "file", "--home", home], { input: "short\n" });
    expect(errorLine(r)).toBe("passphrase must be at least 8 characters");
  }, 60_000);
});
