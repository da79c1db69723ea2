/** Devnet building blocks without a running node: tx verification against the signed vectors, keys, init, RunMigrations, tally. */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fromHex, toHex } from "@cosmjs/encoding";
import { DirectSecp256k1HdWallet, DirectSecp256k1Wallet } from "@cosmjs/proto-signing";
import { sha256 } from "@cosmjs/crypto";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../../bindings/store/memory.js";
import { UpgradeError } from "../../../bindings/core/errors.js";
import {
  exitCodeFor,
  initDevnet,
  readGenesisKeys,
  resolveApp,
  runMigrations,
  migrationOrder,
  silentLogger,
  type ModuleContext,
} from "../../../bindings/apps/devnet/index.js";
import { Branch, MountedStores } from "../../../bindings/apps/devnet/shared/branch.js";
import { getAccount, initGenesisAccount, setAccount } from "../../../bindings/apps/devnet/modules/auth.js";
import { decodeTx, runAnte } from "../../../bindings/apps/devnet/chain/tx.js";
import { TxError } from "../../../bindings/apps/devnet/shared/errors.js";
import { GovModule, makeGovParams } from "../../../bindings/apps/devnet/modules/gov.js";
import { parseCoins } from "../../../bindings/apps/devnet/modules/coins.js";
import { jsCore } from "../../../bindings/core/js/index.js";
import { Vote } from "cosmjs-types/cosmos/gov/v1/gov";
import { GOV, newHome, removeTempDirs, signTx, softwareUpgradeAny, submitProposalAny, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const view = (names: string[]) => new Branch(new MountedStores(new Map(names.map((n) => [n, new MemoryStore()]))));

// docs/spec/interfaces.md §8, signed example.
const KEY = "2d02d8fa9b11503d5aec48320d745e4ef5c4ee2b1adff50da02510fc02e8cd78";
const ADDRESS = "cosmos10zg9t8vm58apjhcrkwwv9jnsly3apzyp4h37v0";
const TX_BODY =
  "0a88020a202f636f736d6f732e676f762e76312e4d73675375626d697450726f706f73616c12e3010a730a2a2f636f736d6f732e757067726164652e763162657461312e4d7367536f6674776172655570677261646512450a2d636f736d6f73313064303779323635676d6d757674347a30773961773838306a6e73723730306a367a6e396b6e12140a027632120b088092b8c398feffffff0118e80712110a057374616b65120831303030303030301a2d636f736d6f7331307a67397438766d353861706a6863726b777776396a6e736c793361707a79703468333776302a0d5570677261646520746f207632321b53776974636820746f207632206174206865696768742031303030";
const AUTH_INFO =
  "0a4e0a460a1f2f636f736d6f732e63727970746f2e736563703235366b312e5075624b657912230a2103f76b4c534d43105f8a8a2f582b40f908b818a7052591ff3aaed4224c161e7cb412040a020801120410c09a0c";
const SIGNATURE = "a86dc6149d5a14540a6bf4758a1a41272cc3b5d46d1393fd0a895de0be297d084ee41fdcb4d529a04dd6bce58b79b1e73cef1cc3e5e35a165ec08aad76ee66ea";
const TX_HASH = "6D45233A37A82CC9E28CD1F14D2CF60A1FFD7D3F6AD7A8C80D030B6033A074A5";
const TX_RAW = `0a8b02${TX_BODY}1256${AUTH_INFO}1a40${SIGNATURE}`;

describe("tx verification (docs/spec/interfaces.md §8 signed example)", () => {
  it("the key of the example is sha256('xupgrade test key 1') with the documented address", async () => {
    expect(toHex(sha256(new TextEncoder().encode("xupgrade test key 1")))).toBe(KEY);
    const [acc] = await (await DirectSecp256k1Wallet.fromKey(fromHex(KEY))).getAccounts();
    expect(acc.address).toBe(ADDRESS);
  });

  it("cosmjs DirectSecp256k1Wallet reproduces the TxRaw vector byte for byte", async () => {
    const key = {
      name: "t",
      role: "account" as const,
      type: "secp256k1" as const,
      address: ADDRESS,
      pubkey: "",
      private_key: KEY,
      mnemonic: "",
      account_number: "5",
      coins: [],
    };
    const proposal = submitProposalAny(ADDRESS, [softwareUpgradeAny("v2", 1000n)], "10000000", "Upgrade to v2", "Switch to v2 at height 1000");
    const raw = await signTx({} as never, key, [proposal], { accountNumber: 5n, sequence: 0n });
    expect(toHex(raw)).toBe(TX_RAW);
    const tx = decodeTx(raw);
    expect(tx.hashHex).toBe(TX_HASH);
    expect(tx.signers).toEqual([ADDRESS]);
  });

  it("the ante handler accepts the vector (account 5, sequence 0) and increments the sequence", () => {
    const v = view(["auth", "bank"]);
    initGenesisAccount(v.store("auth"), ADDRESS, 5n);
    const res = runAnte(v, decodeTx(fromHex(TX_RAW)), { chainId: "xupgrade-devnet-1", height: 2n });
    expect(res.gasWanted).toBe(200000n);
    const acc = getAccount(v.store("auth"), ADDRESS)!;
    expect(acc.sequence).toBe(1n);
    expect(toHex(acc.pubKey!)).toBe("03f76b4c534d43105f8a8a2f582b40f908b818a7052591ff3aaed4224c161e7cb4");
  });

  const anteError = (mutate: (v: Branch) => void, raw = fromHex(TX_RAW), chainId = "xupgrade-devnet-1"): TxError => {
    const v = view(["auth", "bank"]);
    initGenesisAccount(v.store("auth"), ADDRESS, 5n);
    mutate(v);
    try {
      runAnte(v, decodeTx(raw), { chainId, height: 2n });
    } catch (e) {
      expect(e).toBeInstanceOf(TxError);
      return e as TxError;
    }
    throw new Error("ante accepted the tx");
  };

  it("wrong chain id, account number or a tampered signature: sdk 4 with the SDK's log", () => {
    const msg = (n: number, id: string) =>
      `signature verification failed; please verify account number (${n}), sequence (0) and chain-id (${id}): unauthorized`;
    let e = anteError(() => {}, undefined, "other-chain");
    expect([e.codespace, e.code, e.log]).toEqual(["sdk", 4, msg(5, "other-chain")]);
    e = anteError((v) => {
      setAccount(v.store("auth"), { address: ADDRESS, accountNumber: 6n, sequence: 0n });
    });
    expect([e.codespace, e.code, e.log]).toEqual(["sdk", 4, msg(6, "xupgrade-devnet-1")]);
    const tampered = fromHex(TX_RAW);
    tampered[tampered.length - 1] ^= 1;
    e = anteError(() => {}, tampered);
    expect([e.codespace, e.code]).toEqual(["sdk", 4]);
  });

  it("a high-S twin of a valid signature is refused (malleability)", () => {
    const raw = fromHex(TX_RAW);
    const sig = raw.subarray(raw.length - 64);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt("0x" + toHex(sig.subarray(32)));
    sig.set(fromHex((n - s).toString(16).padStart(64, "0")), 32);
    expect(anteError(() => {}, raw).code).toBe(4);
  });

  it("stale sequence: sdk 32; unknown account: sdk 9; undecodable bytes: sdk 2", () => {
    let e = anteError((v) => setAccount(v.store("auth"), { address: ADDRESS, accountNumber: 5n, sequence: 3n }));
    expect([e.codespace, e.code, e.log]).toEqual(["sdk", 32, "account sequence mismatch, expected 3, got 0: incorrect account sequence"]);
    const v = view(["auth", "bank"]);
    try {
      runAnte(v, decodeTx(fromHex(TX_RAW)), { chainId: "xupgrade-devnet-1", height: 2n });
      expect.unreachable();
    } catch (err) {
      e = err as TxError;
    }
    expect([e.codespace, e.code, e.log]).toEqual(["sdk", 9, `fee payer address: ${ADDRESS} does not exist: unknown address`]);
    expect(() => decodeTx(fromHex("ffff"))).toThrow(/tx parse error$/);
    try {
      decodeTx(fromHex("ffff"));
    } catch (err) {
      expect([(err as TxError).codespace, (err as TxError).code]).toEqual(["sdk", 2]);
    }
  });
});

describe("coins", () => {
  it("parses coins and refuses fractions and amounts beyond 2^256-1", () => {
    expect(parseCoins(jsCore, "10000000stake")).toEqual([{ denom: "stake", amount: 10000000n }]);
    expect(() => parseCoins(jsCore, "1.5stake")).toThrow(/amount must be a whole number/);
    expect(() => parseCoins(jsCore, `${1n << 256n}stake`)).toThrow(/exceeds 2\^256-1/);
  });
});

describe("initDevnet", () => {
  it("writes genesis, config and genesis-keys.json (0600) whose mnemonics recover the listed keys", async () => {
    const { home, keys } = await newHome({ validators: 3 });
    expect(keys.map((k) => [k.name, k.role])).toEqual([
      ["validator0", "validator"],
      ["validator1", "validator"],
      ["validator2", "validator"],
      ["alice", "account"],
      ["bob", "account"],
    ]);
    const file = join(home, "config", "genesis-keys.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const parsed = JSON.parse(readFileSync(file, "utf8"));
    expect(parsed).toMatchObject({ chain_id: "xupgrade-devnet-1", bech32_prefix: "cosmos", hd_path: "m/44'/118'/0'/0/0" });
    for (const k of keys) {
      const [acc] = await (await DirectSecp256k1HdWallet.fromMnemonic(k.mnemonic)).getAccounts();
      expect(acc.address).toBe(k.address);
      const [fromKey] = await (await DirectSecp256k1Wallet.fromKey(fromHex(k.private_key))).getAccounts();
      expect(fromKey.address).toBe(k.address);
      expect(Buffer.from(acc.pubkey).toString("base64")).toBe(k.pubkey);
    }
    expect(keys[0].voting_power).toBe("100");
    const genesis = JSON.parse(readFileSync(join(home, "config", "genesis.json"), "utf8"));
    expect(genesis.app_state.gov.params).toMatchObject({
      voting_period: "1s",
      max_deposit_period: "1s",
      min_deposit: [{ denom: "stake", amount: "10000000" }],
    });
    expect(genesis.app_state.staking.validators).toHaveLength(3);
  });

  it("is deterministic per chain id, refuses an initialised home and bad options", async () => {
    const a = await newHome();
    const b = await newHome();
    expect(a.keys.map((k) => k.address)).toEqual(b.keys.map((k) => k.address));
    const c = await newHome({ chainId: "other-1" });
    expect(c.keys[0].address).not.toBe(a.keys[0].address);
    await expect(initDevnet({ home: a.home })).rejects.toThrow(/already initialised/);
    const home = tempDir();
    await expect(initDevnet({ home, validators: 0 })).rejects.toThrow(/validators must be an integer from 1 to 100/);
    await expect(initDevnet({ home, votingPeriod: "ten seconds" })).rejects.toThrow(/invalid voting period/);
    // Typed: the kind of failure, for callers that decide on it.
    await expect(initDevnet({ home, votingPeriod: "1us" })).rejects.toMatchObject({
      name: "DevnetError",
      kind: "option",
      message: 'invalid voting period "1us": must be at least 1ms',
    });
    await expect(initDevnet({ home: a.home })).rejects.toMatchObject({ name: "DevnetError", kind: "home" });
    await expect(initDevnet({ home, minDeposit: "1.5stake" })).rejects.toThrow(/amount must be a whole number/);
    await expect(initDevnet({ home, chainId: "bad chain" })).rejects.toThrow(/invalid chain id/);
    const keysAgain = await readGenesisKeys(a.home);
    expect(keysAgain.keys).toHaveLength(6);
  });
});

describe("app definitions and RunMigrations (docs/spec/keeper.md §8.3)", () => {
  const ctx = (module: string): ModuleContext => ({ module, height: 10n, timeNs: 0n, chainId: "c", logger: silentLogger, store: () => new MemoryStore() });

  it("runs from → to migrations in order (names sorted, auth last), initialises new modules, returns every version", async () => {
    const calls: string[] = [];
    const app = resolveApp({
      name: "t",
      modules: [
        { name: "zeta", consensusVersion: 3, migrations: { 1: () => void calls.push("zeta 1→2"), 2: () => void calls.push("zeta 2→3") } },
        { name: "alpha", consensusVersion: 2, migrations: { 1: () => void calls.push("alpha 1→2") } },
        { name: "auth", consensusVersion: 6, migrations: { 5: () => void calls.push("auth 5→6") } },
        { name: "fresh", consensusVersion: 4, initGenesis: () => void calls.push("fresh genesis") },
        { name: "same", consensusVersion: 1 },
      ],
    });
    expect(migrationOrder(app)).toEqual(["alpha", "bank", "fresh", "gov", "same", "staking", "upgrade", "zeta", "auth"]);
    const from = new Map<string, bigint>([
      ["auth", 5n],
      ["bank", 4n],
      ["gov", 5n],
      ["staking", 5n],
      ["upgrade", 2n],
      ["zeta", 1n],
      ["alpha", 1n],
      ["same", 1n],
    ]);
    const out = await runMigrations(app, from, ctx, silentLogger);
    expect(calls).toEqual(["alpha 1→2", "fresh genesis", "zeta 1→2", "zeta 2→3", "auth 5→6"]);
    expect(Object.fromEntries(out)).toEqual({ alpha: 2n, bank: 4n, fresh: 4n, gov: 5n, same: 1n, staking: 5n, upgrade: 2n, zeta: 3n, auth: 6n });
  });

  it("missing migrations are errors with the SDK's texts", async () => {
    const none = resolveApp({ name: "t", modules: [{ name: "m", consensusVersion: 3 }] });
    await expect(runMigrations(none, new Map([["m", 1n]]), ctx, silentLogger)).rejects.toThrow("no migrations found for module m: not found");
    const gap = resolveApp({ name: "t", modules: [{ name: "m", consensusVersion: 3, migrations: { 1: () => {} } }] });
    const err = await runMigrations(gap, new Map([["m", 1n]]), ctx, silentLogger).catch((e) => e);
    expect(err).toBeInstanceOf(UpgradeError);
    expect(err.message).toBe("no migration found for module m from version 2 to version 3: not found");
    expect(exitCodeFor(err)).toBe(23);
  });

  it("refuses malformed definitions", () => {
    expect(() => resolveApp({ name: "" })).toThrow(/name must be a non-empty string/);
    expect(() => resolveApp({ name: "x", modules: [{ name: "a", consensusVersion: -1 }] })).toThrow(/uint64/);
    expect(() => resolveApp({ name: "x", modules: [{ name: "a", consensusVersion: 1, stores: ["bank"] }] })).toThrow(/belongs to both/);
    expect(() => resolveApp({ name: "x", upgrades: [{ name: "u", storeUpgrades: { added: ["a", "a"] } }] })).toThrow(/duplicate key a in added/);
    expect(() => resolveApp({ name: "x", upgrades: [{ name: "u", storeUpgrades: { added: ["nope"] } }] })).toThrow(/not a store of any module/);
  });
});

describe("exit codes (docs/spec/keeper.md §6.1)", () => {
  it("maps halt errors to 20–25, a clean stop to 0, anything else to 1", () => {
    const e = (kind: ConstructorParameters<typeof UpgradeError>[3]) => new UpgradeError("undefined", 1, "x", kind);
    expect(exitCodeFor(e("upgrade-needed"))).toBe(20);
    expect(exitCodeFor(e("binary-too-early"))).toBe(21);
    expect(exitCodeFor(e("downgrade"))).toBe(22);
    expect(exitCodeFor(e("handler-failed"))).toBe(23);
    expect(exitCodeFor(e("info-write-failed"))).toBe(24);
    expect(exitCodeFor(new UpgradeError("xupgrade", 1, "x", "corrupt-store"))).toBe(25);
    expect(exitCodeFor(new Error("other"))).toBe(1);
    expect(exitCodeFor(new Error("boom"), { handler: true })).toBe(23);
    expect(exitCodeFor(undefined)).toBe(0);
  });
});

describe("gov tally (v0.50 rules over validator power)", () => {
  const vals = ["a", "b", "c", "d"].map((n, i) => ({ account: `cosmos1${n}`, tokens: 100n * BigInt(i + 1) })); // 100, 200, 300, 400
  const gov = new GovModule({ signer: () => undefined, routable: () => false, check: () => {}, execute: () => [] }, () => vals, silentLogger);
  const params = makeGovParams({
    minDeposit: [{ denom: "stake", amount: 1n }],
    maxDepositPeriodNs: 1n,
    votingPeriodNs: 1n,
    quorum: "0.334000000000000000",
    threshold: "0.500000000000000000",
    vetoThreshold: "0.334000000000000000",
  });
  const tally = (votes: [string, number][]) => {
    const v = view(["gov"]);
    for (const [voter, option] of votes) {
      // Votes are keyed by address bytes in the store; the tally only reads them back, so store them directly.
      v.store("gov").set(
        new Uint8Array([0x20, 0, 0, 0, 0, 0, 0, 0, 1, ...new TextEncoder().encode(voter)]),
        Vote.encode({ proposalId: 1n, voter: `cosmos1${voter}`, options: [{ option, weight: "1.000000000000000000" }], metadata: "" }).finish(),
      );
    }
    const r = gov.tally(v, { id: 1n } as never, params);
    return [r.passes, r.burnDeposits];
  };

  it("quorum, abstain, veto and threshold", () => {
    expect(tally([["c", 1]])).toEqual([false, false]); // 300/1000 < 33.4 %
    expect(tally([["d", 1]])).toEqual([true, false]); // 400/1000 ≥ quorum, all yes
    expect(tally([["d", 2]])).toEqual([false, false]); // all abstain
    expect(
      tally([
        ["d", 1],
        ["c", 4],
      ]),
    ).toEqual([false, true]); // veto 300/700 > 33.4 %: burn
    expect(
      tally([
        ["b", 1],
        ["c", 3],
      ]),
    ).toEqual([false, false]); // yes 200/500 ≤ 50 %
    expect(
      tally([
        ["c", 1],
        ["b", 3],
        ["a", 2],
      ]),
    ).toEqual([true, false]); // yes 300/(600-100) > 50 %
  });
});

it("the gov module address is sha256('gov')[:20]", () => {
  expect(GOV).toBe("cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn");
});
