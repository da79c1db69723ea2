/**
 * The commit multistore on real LevelDB databases: its app hash and `ics23:simple` proofs byte for byte as
 * cosmossdk.io/store v1.1.1 makes them; store roots as cosmos/iavl's at every height; proofs of present
 * and absent keys at the latest and past heights verified with @confio/ics23 and chained to the app hash;
 * pruning that keeps exactly the nodes the retained versions use; store upgrades entering and leaving the
 * app hash; reopening at exactly the last commit; an old database refused with a clear message.
 */
import { readFileSync } from "node:fs";
import { ics23, iavlSpec, tendermintSpec, verifyMembership, verifyNonMembership } from "@confio/ics23";
import { ClassicLevel } from "classic-level";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { sha256 } from "@noble/hashes/sha2.js";
import { openNodeCommitMultiStore, openNodeMultiStore } from "../../../bindings/store/level-node.js";
import { commitInfoHash, storeProof } from "../../../bindings/store/rootmulti/commit-info.js";
import { CommitMultiStore, StoreFormatError, type ProofOp } from "../../../bindings/store/rootmulti/store.js";
import { encodeCommitmentProof } from "../../../bindings/store/iavl/proof.js";
import { CommitmentProof } from "cosmjs-types/cosmos/ics23/v1/proofs";
import { upgradeStoreLoader } from "../../../bindings/module/store-loader.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";
import { loadCore } from "../../../bindings/core/index.js";
import type { Core } from "../../../bindings/core/contract.js";

interface Vectors {
  trees: { name: string; initial_version: number; versions: { version: number; ops: ([string] | [string, string])[]; hash: string }[] }[];
  multistores: { name: string; stores: { name: string; hash: string }[]; app_hash: string; proofs: { store: string; proof: string }[] }[];
}
const vectors = JSON.parse(readFileSync(new URL("../iavl/vectors.json", import.meta.url), "utf8")) as Vectors;
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const bytes = (s: string) => new TextEncoder().encode(s);
const EMPTY = new Uint8Array(0);

const open: CommitMultiStore[] = [];
afterEach(async () => {
  for (const ms of open.splice(0)) await ms.close();
});
afterAll(removeTempDirs);
async function openStore(dir: string, keepRecent?: number): Promise<CommitMultiStore> {
  const ms = await openNodeCommitMultiStore(dir, { keepRecent, isHostStore: (n) => n.startsWith("_") });
  open.push(ms);
  return ms;
}
async function close(ms: CommitMultiStore): Promise<void> {
  open.splice(open.indexOf(ms), 1);
  await ms.close();
}

/** Verifies `ops` as a light client does: the key's op against the store root it computes, that root in the app hash. */
function verifyChain(ops: ProofOp[], appHash: Uint8Array, storeName: string, key: Uint8Array, value: Uint8Array | undefined): boolean {
  expect(ops.map((o) => o.type)).toEqual(["ics23:iavl", "ics23:simple"]);
  expect(ops[0].key).toEqual(key);
  expect(ops[1].key).toEqual(bytes(storeName));
  const iavl = ics23.CommitmentProof.decode(ops[0].data);
  const simple = ics23.CommitmentProof.decode(ops[1].data);
  const storeRoot = simple.exist!.value!;
  const inStore = value === undefined ? verifyNonMembership(iavl, iavlSpec, storeRoot, key) : verifyMembership(iavl, iavlSpec, storeRoot, key, value);
  return inStore && verifyMembership(simple, tendermintSpec, appHash, bytes(storeName), storeRoot);
}

describe("the commitment over stores, against cosmossdk.io/store v1.1.1", () => {
  for (const m of vectors.multistores) {
    it(`${m.name}: same app hash, same ics23:simple proof bytes`, () => {
      const infos = m.stores.map((s) => ({ name: s.name, hash: unhex(s.hash) }));
      expect(hex(commitInfoHash(sha256, infos))).toBe(m.app_hash);
      // The order stores are given in does not matter.
      expect(hex(commitInfoHash(sha256, [...infos].reverse()))).toBe(m.app_hash);
      for (const p of m.proofs) {
        const proof = storeProof(sha256, infos, p.store);
        expect(hex(encodeCommitmentProof(proof))).toBe(p.proof);
        const decoded = ics23.CommitmentProof.decode(unhex(p.proof));
        expect(verifyMembership(decoded, tendermintSpec, unhex(m.app_hash), bytes(p.store), infos.find((s) => s.name === p.store)!.hash)).toBe(true);
      }
    });
  }

  it("the proof codec re-encodes the cosmos/ics23 iavl and tendermint vectors byte for byte", () => {
    for (const dir of ["iavl", "tendermint"]) {
      for (const file of ["exist_left", "exist_middle", "exist_right", "nonexist_left", "nonexist_middle", "nonexist_right"]) {
        const v = JSON.parse(readFileSync(new URL(`../../vectors/ics23/${dir}/${file}.json`, import.meta.url), "utf8")) as { proof: string };
        expect(hex(encodeCommitmentProof(CommitmentProof.decode(unhex(v.proof)))), `${dir}/${file}`).toBe(v.proof);
      }
    }
  });

  it("no stores: sha256 of nothing, as the SDK's empty commit info", () => {
    expect(hex(commitInfoHash(sha256, []))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});

describe("CommitMultiStore", () => {
  it("commits each store as cosmos/iavl would at the same heights, and reopens at exactly the last commit", async () => {
    const dir = tempDir("xupgrade-rootmulti-");
    let ms = await openStore(dir);
    const small = vectors.trees.find((t) => t.name === "small")!;
    const random = vectors.trees.find((t) => t.name === "random")!;
    for (let i = 0; i < small.versions.length; i++) {
      const h = i + 1;
      for (const [name, tc] of [
        ["upgrade", small],
        ["bank", random],
      ] as const) {
        const s = ms.store(name);
        for (const op of tc.versions[i].ops) {
          if (op.length === 1) s.delete(unhex(op[0]));
          else s.set(unhex(op[0]), unhex(op[1]));
        }
      }
      ms.store("_blocks").set(bytes(`block ${h}`), bytes("not in the app hash"));
      const working = ms.workingHash();
      const appHash = await ms.commit(h);
      expect(hex(appHash)).toBe(hex(working));
      const infos = ms.at(h)!.commitInfo;
      expect(infos.map((i) => i.name)).toEqual(["bank", "upgrade"]);
      expect(hex(infos[0].hash)).toBe(random.versions[i].hash);
      expect(hex(infos[1].hash)).toBe(small.versions[i].hash);
      expect(hex(appHash)).toBe(hex(commitInfoHash(sha256, infos)));
    }
    const lastHash = ms.lastAppHash;
    const contents = [...ms.store("bank").iterate(EMPTY, undefined)];
    await close(ms);

    ms = await openStore(dir);
    expect(ms.lastCommittedHeight).toBe(BigInt(small.versions.length));
    expect(ms.lastAppHash).toEqual(lastHash);
    expect(ms.committedStores()).toEqual(["_blocks", "bank", "upgrade"]);
    expect([...ms.store("bank").iterate(EMPTY, undefined)]).toEqual(contents);
    expect([...ms.store("bank").iterate(EMPTY, undefined, true)]).toEqual([...contents].reverse());
    // Nothing pending: the working hash is the committed one.
    expect(ms.workingHash()).toEqual(lastHash);
  });

  it("proves present and absent keys at the latest and past heights; a wrong value, key or app hash fails", async () => {
    const cores: Core[] = [await loadCore("wasm"), await loadCore("js")];
    const ms = await openStore(tempDir("xupgrade-rootmulti-"));
    const hashes: Uint8Array[] = [];
    for (let h = 1; h <= 6; h++) {
      const up = ms.store("upgrade");
      const gov = ms.store("gov");
      up.set(Uint8Array.of(0x00), bytes(`plan ${h}`));
      up.set(Uint8Array.of(0x02, h), bytes(`v${h}`));
      for (let i = 0; i < 50; i++) gov.set(bytes(`p/${h}/${i}`), bytes(`${h * i}`));
      if (h > 1) gov.delete(bytes(`p/${h - 1}/3`));
      hashes[h] = await ms.commit(h);
    }
    for (const h of [6, 4, 2]) {
      const v = ms.at(h)!;
      expect(v.appHash).toEqual(hashes[h]);
      const cases: [string, Uint8Array][] = [
        ["upgrade", Uint8Array.of(0x00)],
        ["upgrade", Uint8Array.of(0x02, h)],
        ["upgrade", Uint8Array.of(0x02, h + 1)], // absent at h
        ["upgrade", Uint8Array.of(0x01)], // absent, between
        ["upgrade", Uint8Array.of(0xff)], // absent, past the end
        ["gov", bytes(`p/${h}/7`)],
        ["gov", bytes(`p/${h - 1}/3`)], // deleted at h
        ["gov", bytes("a")], // absent, before the start
      ];
      for (const [store, key] of cases) {
        const { value, ops } = v.prove(store, key);
        expect(value).toEqual(v.store(store).get(key));
        expect(verifyChain(ops, hashes[h], store, key, value), `${store} ${hex(key)} at ${h}`).toBe(true);
        // The project's own verifier, both cores, agrees (and refuses a forged value).
        for (const core of cores) {
          expect(() => core.ics23VerifyStoreProof(hashes[h], ops, store, key, value)).not.toThrow();
          expect(() => core.ics23VerifyStoreProof(hashes[h], ops, store, key, bytes("forged"))).toThrow();
        }
        expect(refuses(() => verifyChain(ops, hashes[h === 6 ? 5 : h + 1], store, key, value))).toBe(true);
        if (value !== undefined) {
          expect(refuses(() => verifyChain(ops, hashes[h], store, key, bytes("forged")))).toBe(true);
          expect(refuses(() => verifyChain(ops, hashes[h], store, key, undefined))).toBe(true);
        } else expect(refuses(() => verifyChain(ops, hashes[h], store, key, bytes("x")))).toBe(true);
      }
    }
    expect(() => ms.at(6)!.prove("nope", Uint8Array.of(1))).toThrow("store nope does not exist at height 6");
  });

  it("keeps exactly the nodes the retained versions use, and answers nothing below them", async () => {
    const dir = tempDir("xupgrade-rootmulti-");
    const ms = await openStore(dir, 2);
    for (let h = 1; h <= 12; h++) {
      const s = ms.store("bank");
      for (let i = 0; i < 40; i++) s.set(bytes(`k${(h * 7 + i * 13) % 97}`), bytes(`${h}`));
      s.delete(bytes(`k${h % 97}`));
      if (h === 5) ms.store("tags").set(bytes("t"), bytes("1"));
      if (h === 8) ms.deleteStore("tags");
      await ms.commit(h);
    }
    expect(ms.retainedHeights()).toEqual({ earliest: 10n, latest: 12n });
    for (let h = 1; h <= 9; h++) expect(ms.at(h)).toBeUndefined();
    expect(ms.at(13)).toBeUndefined();
    for (const h of [10, 11, 12]) expect([...ms.at(h)!.store("bank").iterate(EMPTY, undefined)].length).toBeGreaterThan(30);
    await close(ms);

    // Every node stored is used by a retained version, and every node they use is stored.
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const stored = new Set<string>();
    const others: string[] = [];
    for await (const k of db.keys()) {
      if (k[0] === 0x6e) stored.add(hex(k));
      else others.push(hex(k));
    }
    await db.close();
    // F, h, three records (c‖10, c‖11, c‖12) and the orphan lists of 11 and 12.
    expect(others.map((k) => k.slice(0, 2)).sort()).toEqual(["46", "63", "63", "63", "68", "6f", "6f"]);
    const ms2 = await openStore(dir, 2);
    const used = new Set<string>();
    for (const h of [10, 11, 12]) {
      const v = ms2.at(h)!;
      for (const name of v.stores()) {
        // Reading the whole tree touches every node of it.
        const prefix = [0x6e, 0, name.length, ...bytes(name)];
        const tree = v.tree(name);
        for (const n of tree.savedNodes()) {
          const key = new Uint8Array(prefix.length + 12);
          key.set(prefix);
          new DataView(key.buffer).setBigUint64(prefix.length, BigInt(n.version));
          new DataView(key.buffer).setUint32(prefix.length + 8, n.nonce);
          used.add(hex(key));
        }
      }
    }
    expect(stored).toEqual(used);
  });

  it("store upgrades: an added store enters the app hash at the upgrade height, renamed and deleted ones leave it", async () => {
    const dir = tempDir("xupgrade-rootmulti-");
    let ms = await openStore(dir);
    ms.store("notes").set(bytes("n1"), bytes("hello"));
    ms.store("notes").set(bytes("n2"), bytes("world"));
    ms.store("old").set(bytes("x"), bytes("y"));
    ms.store("upgrade").set(Uint8Array.of(0), bytes("plan"));
    await ms.commit(1);
    await ms.commit(2);
    expect(ms.at(2)!.commitInfo.map((i) => i.name)).toEqual(["notes", "old", "upgrade"]);
    await close(ms);

    ms = await openStore(dir);
    const loader = upgradeStoreLoader(3n, { added: ["tags"], renamed: [{ oldKey: "notes", newKey: "memos" }], deleted: ["old"] });
    const { upgraded, stores } = loader(ms, ["memos", "tags", "upgrade"]);
    expect(upgraded).toBe(true);
    stores.get("tags")!.set(bytes("t"), bytes("1"));
    expect([...stores.get("memos")!.iterate(EMPTY, undefined)].map(([k]) => new TextDecoder().decode(k))).toEqual(["n1", "n2"]);
    const working = ms.workingHash();
    const appHash = await ms.commit(3);
    expect(appHash).toEqual(working);
    const at3 = ms.at(3)!;
    expect(at3.commitInfo.map((i) => i.name)).toEqual(["memos", "tags", "upgrade"]);
    expect(ms.committedStores()).toEqual(["memos", "tags", "upgrade"]);
    // The renamed store is a new tree that starts at the upgrade height: its nodes have version 3.
    const proof = ics23.CommitmentProof.decode(at3.prove("memos", bytes("n1")).ops[0].data);
    expect(Buffer.from(proof.exist!.leaf!.prefix!)).toEqual(Buffer.from([0, 2, 6])); // varint 0, varint 1, varint 3
    // The version before still has the old stores, provable.
    const at2 = ms.at(2)!;
    const { value, ops } = at2.prove("notes", bytes("n2"));
    expect(new TextDecoder().decode(value)).toBe("world");
    expect(verifyChain(ops, at2.appHash, "notes", bytes("n2"), value)).toBe(true);
    expect(at3.has("notes")).toBe(false);
  });

  it("a failed commit leaves the last committed version and drops the pending changes", async () => {
    const dir = tempDir("xupgrade-rootmulti-");
    const ms = await openStore(dir);
    ms.store("bank").set(bytes("a"), bytes("1"));
    const h1 = await ms.commit(1);
    ms.store("bank").set(bytes("a"), bytes("2"));
    // The commit's write batch fails as a full disk would make it, after every operation was added.
    type Batch = { write: (...a: unknown[]) => Promise<void> };
    const db = (ms as unknown as { db: { batch: (...a: unknown[]) => Batch } }).db;
    const real = db.batch.bind(db);
    db.batch = (...a: unknown[]) => {
      const b = real(...a);
      b.write = () => Promise.reject(new Error("disk full"));
      return b;
    };
    await expect(ms.commit(2)).rejects.toThrow("disk full");
    db.batch = real;
    expect(ms.lastCommittedHeight).toBe(1n);
    expect(ms.lastAppHash).toEqual(h1);
    expect(ms.store("bank").get(bytes("a"))).toEqual(bytes("1"));
    ms.store("bank").set(bytes("b"), bytes("3"));
    await ms.commit(2);
    expect(ms.at(2)!.store("bank").get(bytes("b"))).toEqual(bytes("3"));
  });

  it("refuses writes while a commit is in flight, and past versions are read-only", async () => {
    const ms = await openStore(tempDir("xupgrade-rootmulti-"));
    const bank = ms.store("bank");
    bank.set(bytes("a"), bytes("1"));
    const p = ms.commit(1);
    expect(() => bank.set(bytes("b"), bytes("2"))).toThrow("store is committing");
    await p;
    expect(() => ms.at(1)!.store("bank").set(bytes("c"), bytes("3"))).toThrow("store bank at height 1 is read-only");
  });

  it("after open, reads the inner nodes of the latest trees ahead, in the background; a close meanwhile stops it", async () => {
    const dir = tempDir("xupgrade-rootmulti-");
    const keys = Array.from({ length: 3000 }, (_, i) => bytes(`acct/${(i * 7919) % 3000}`));
    let ms = await openStore(dir);
    for (let h = 1; h <= 3; h++) {
      for (const k of keys.slice((h - 1) * 1000, h * 1000)) ms.store("bank").set(k, bytes(`v${h}`));
      ms.store("gov").set(bytes(`p${h}`), bytes("x"));
      await ms.commit(h);
    }
    const appHash = ms.lastAppHash;
    await close(ms);

    // Closed at once, while the warm-up is under way: no error, and the database opens again as it was.
    const early = await openNodeCommitMultiStore(dir, { warmNodeCache: true });
    await early.close();

    const readAll = async (warm: boolean) => {
      const s = await openNodeCommitMultiStore(dir, { warmNodeCache: warm });
      open.push(s);
      await s.warmed;
      const before = s.nodeStats.read;
      for (const k of keys) expect(s.store("bank").get(k)).toBeDefined();
      const read = s.nodeStats.read - before;
      expect(s.lastAppHash).toEqual(appHash);
      await close(s);
      return read;
    };
    // Warmed, a read takes only its leaf from the database (leaves are not read ahead): 3,000 keys, 3,000 leaves.
    expect(await readAll(true)).toBe(keys.length);
    // Not warmed, it takes the inner nodes of its path too.
    expect(await readAll(false)).toBeGreaterThan(keys.length + 1000);
    ms = await openStore(dir);
    expect(ms.store("gov").get(bytes("p2"))).toEqual(bytes("x"));
  });

  it("refuses a database of the older layout (no Merkle commitment) with a clear message", async () => {
    const dir = tempDir("xupgrade-rootmulti-");
    const old = await openNodeMultiStore(dir);
    old.store("upgrade").set(Uint8Array.of(0), bytes("plan"));
    await old.commit(1n);
    await old.close();
    await expect(openNodeCommitMultiStore(dir)).rejects.toThrow(StoreFormatError);
    await expect(openNodeCommitMultiStore(dir)).rejects.toThrow("written by an older xupgrade");
  });
});

/** @confio/ics23 refuses by returning false or by throwing; so does `expect` inside verifyChain. */
function refuses(verify: () => boolean): boolean {
  try {
    return !verify();
  } catch {
    return true;
  }
}
