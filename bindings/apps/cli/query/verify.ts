/**
 * `xupgrade query upgrade plan|applied|module_versions --verify` (docs/spec/light-client.md §9.2): the same
 * answers as the plain queries, each proven against the app hash of a header the light client verified from a
 * trust root. Loaded only when --verify is given (the bin builds it as a bundle of its own), so plain queries
 * stay as small as they were.
 *
 * The trust root comes from --trust-height/--trust-hash, else from the trust file `<home>/light/<chain-id>.json`,
 * else — trust on first use — from the node's own latest header, taken unverified and saved to that file, which
 * is said on stderr. After a verification the file holds the newest verified header: each one becomes the
 * next root. Stdout is what the plain query prints; stderr says what was verified, against what.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { toHex } from "@cosmjs/encoding";
import type { Command } from "commander";
import { CometRpc, RpcError } from "../../../client/rpc.js";
import { VerificationError } from "../../../light/errors.js";
import { RpcProvider } from "../../../light/rpc-provider.js";
import { trustRoot, type TrustOptions } from "../../../light/trust.js";
import { VerifiedUpgradeClient, trustOnFirstUse, type Proven } from "../../../light/upgrade.js";
import { Context } from "../context.js";
import { CliError } from "../errors.js";
import { expectArgs, type QueryOpts, integerValue } from "../flags.js";
import { httpTransport } from "../../../client/http.js";
import { print, toIndentedJson } from "../output.js";
import { blockRecord } from "./block-record.js";
import { planJson } from "./json.js";
import { printReadiness, readinessFlags, type ReadinessOpts } from "./readiness.js";
import { HEIGHT } from "../../../go/option.js";

export interface VerifyOpts extends QueryOpts {
  verify?: boolean;
  trustHeight?: string;
  trustHash?: string;
  trustingPeriod?: string;
  trustFile?: string;
  witness?: string[];
  chainId?: string;
}

/** What the trust file keeps: the newest verified header, and where trust began. */
interface TrustFile {
  chain_id: string;
  height: string;
  hash: string;
  time: string;
  origin: { how: "first-use" | "flags"; node: string; height: string; hash: string; at: string };
  updated_at: string;
}

const note = (line: string) => process.stderr.write(`${line}\n`);

function readTrustFile(path: string): TrustFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read the trust file ${path}: ${(e as Error).message}`);
  }
  try {
    const f = JSON.parse(text) as TrustFile;
    if (typeof f.height !== "string" || typeof f.hash !== "string" || typeof f.chain_id !== "string" || !f.origin) throw new Error("fields are missing");
    return f;
  } catch (e) {
    throw new CliError(`the trust file ${path} is not a trust file (${(e as Error).message}): remove it, or pass --trust-height and --trust-hash`);
  }
}

function writeTrustFile(path: string, f: TrustFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(f, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

interface Verified {
  client: VerifiedUpgradeClient;
  node: string;
  save(): void;
}

/** Connects from the trust root the flags, the trust file or first use give, and verifies the node's latest header. */
async function connect(opts: VerifyOpts): Promise<Verified> {
  const ctx = new Context(opts);
  const rpc = ctx.rpc();
  const node = rpc.label;
  if (ctx.height !== 0n) throw new CliError("--height cannot be used with --verify: the state just before the latest verified header is proven");
  if ((opts.trustHeight === undefined) !== (opts.trustHash === undefined)) throw new CliError("--trust-height and --trust-hash go together");
  const provider = new RpcProvider(rpc);
  let chainId = opts.chainId;
  if (chainId === undefined && opts.trustHeight === undefined) chainId = (await provider.status()).chainId;
  const fileFor = (id: string) => opts.trustFile ?? join(ctx.home, "light", `${id}.json`);

  let trust: TrustOptions;
  let origin: TrustFile["origin"];
  const now = new Date().toISOString();
  if (opts.trustHeight !== undefined) {
    trust = { height: integerValue("--trust-height", opts.trustHeight, HEIGHT), hash: opts.trustHash!, period: opts.trustingPeriod };
    const r = trustRoot(trust);
    origin = { how: "flags", node, height: r.height.toString(), hash: toHex(r.hash).toUpperCase(), at: now };
    note(`trust root: height ${r.height}, hash ${origin.hash} (--trust-height, --trust-hash)`);
  } else {
    const file = fileFor(chainId!);
    const saved = readTrustFile(file);
    if (saved) {
      if (saved.chain_id !== chainId) throw new CliError(`the trust file ${file} is for chain ${JSON.stringify(saved.chain_id)}, the node is on ${JSON.stringify(chainId)}`);
      trust = { height: BigInt(saved.height), hash: saved.hash, period: opts.trustingPeriod };
      origin = saved.origin;
      note(
        `trust root: height ${saved.height}, hash ${saved.hash}, from ${file} (trust began ${saved.origin.how === "first-use" ? "on first use" : "from --trust-height/--trust-hash"} ` +
          `at height ${saved.origin.height} with ${saved.origin.node}, ${saved.origin.at})`,
      );
    } else {
      const first = await trustOnFirstUse(provider);
      if (first.chainId !== chainId) throw new CliError(`the node's latest header is of chain ${JSON.stringify(first.chainId)}, not ${JSON.stringify(chainId)}`);
      trust = { height: first.height, hash: first.hash, period: opts.trustingPeriod };
      origin = { how: "first-use", node, height: first.height.toString(), hash: toHex(first.hash).toUpperCase(), at: now };
      writeTrustFile(file, { chain_id: first.chainId, height: origin.height, hash: origin.hash, time: first.time, origin, updated_at: now });
      note(
        `trust on first use: no trust root was given and ${file} did not exist, so the node's own latest header — height ${first.height}, ` +
          `hash ${origin.hash}, chain ${first.chainId} — is trusted as it is, unverified, and saved there. Check that hash with a source you ` +
          `trust (a validator, an explorer), or pass --trust-height and --trust-hash.`,
      );
    }
  }

  const witnesses = (opts.witness ?? []).map((w) => new RpcProvider(new CometRpc(w, undefined, httpTransport)));
  const client = await VerifiedUpgradeClient.connect(provider, { chainId, trust, witnesses });
  await client.sync();
  return {
    client,
    node,
    save: () => {
      const root = client.trustRoot();
      const f: TrustFile = { chain_id: root.chainId, height: root.height.toString(), hash: toHex(root.hash).toUpperCase(), time: root.time, origin, updated_at: new Date().toISOString() };
      writeTrustFile(fileFor(root.chainId), f);
    },
  };
}

/** The stderr line saying what a value was proven against. */
function verifiedLine(what: string, p: Proven<unknown>, witnesses: number): string {
  const h = p.header;
  return (
    `verified: ${what} at height ${p.height}, against the app hash ${toHex(h.appHash).toUpperCase()} of header ${h.height} (${toHex(h.hash).toUpperCase()}, ` +
    `${h.chainId}), ${p.proofs} store proof${p.proofs === 1 ? "" : "s"}${witnesses ? `, confirmed by ${witnesses} witness${witnesses === 1 ? "" : "es"}` : ""}`
  );
}

/** Runs a verified query: every verification failure becomes `Error: verification failed: …`. */
async function verified(opts: VerifyOpts, run: (v: Verified) => Promise<void>): Promise<void> {
  try {
    const v = await connect(opts);
    try {
      await run(v);
    } finally {
      // What was verified stays verified, also when the answer is "not found".
      v.save();
    }
  } catch (e) {
    if (e instanceof VerificationError) throw new CliError(`verification failed: ${e.message}`);
    throw e;
  }
}

export async function plan(opts: VerifyOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  const ctx = new Context(opts);
  await verified(opts, async ({ client }) => {
    const p = await client.currentPlan();
    note(verifiedLine(p.value ? `plan ${JSON.stringify(p.value.name)}` : "no plan scheduled (its absence)", p, opts.witness?.length ?? 0));
    if (!p.value) throw new CliError("no upgrade scheduled");
    print(planJson(p.value), ctx.output);
  });
}

export async function moduleVersions(opts: VerifyOpts, cmd: Command): Promise<void> {
  const [moduleName = ""] = expectArgs(cmd, 0, 1);
  const ctx = new Context(opts);
  await verified(opts, async ({ client }) => {
    const p = await client.moduleVersions();
    note(verifiedLine(`all ${p.value.length} module versions (the whole range)`, p, opts.witness?.length ?? 0));
    const list = moduleName === "" ? p.value : p.value.filter((m) => m.name === moduleName);
    if (list.length === 0) throw new CliError("not found");
    print({ module_versions: list.map((m) => ({ name: m.name, version: m.version.toString() })) }, ctx.output);
  });
}

export async function applied(opts: VerifyOpts, cmd: Command): Promise<void> {
  const [name] = expectArgs(cmd, 1, 1);
  await verified(opts, async ({ client }) => {
    const p = await client.appliedPlan(name);
    note(verifiedLine(p.value === 0n ? `${JSON.stringify(name)} was not applied (every Done record)` : `${JSON.stringify(name)} applied at height ${p.value}`, p, opts.witness?.length ?? 0));
    if (p.value === 0n) throw new CliError("no upgrade found");
    // The block record of that height, its header verified backwards from the verified one.
    const header = await client.light.verifyBackwards(p.value);
    const rpc = client.provider instanceof RpcProvider ? client.provider.rpc : undefined;
    if (!rpc) throw new CliError("the block record needs the node's RPC");
    const res = await rpc.call("blockchain", { minHeight: p.value.toString(), maxHeight: p.value.toString() }).catch((e: unknown) => {
      throw e instanceof RpcError ? new CliError(e.message) : e;
    });
    const meta = Array.isArray(res.block_metas) ? (res.block_metas as { block_id?: { hash?: string } }[]).find((m) => m.block_id?.hash?.toUpperCase() === toHex(header.hash).toUpperCase()) : undefined;
    if (meta === undefined) throw new CliError(`the node's block record of height ${p.value} is not the verified block ${toHex(header.hash).toUpperCase()}`);
    note(`verified: the block record of height ${p.value} (${toHex(header.hash).toUpperCase()}), by the hash chain down from header ${client.header.height}`);
    process.stdout.write(toIndentedJson(blockRecord(rpc, meta)) + "\n");
  });
}

/** `query upgrade readiness --verify` (docs/spec/readiness.md §10): the tally's value in the readiness store, proven. */
export async function readiness(opts: VerifyOpts & ReadinessOpts, cmd: Command): Promise<void> {
  const [name = ""] = expectArgs(cmd, 0, 1);
  const ctx = new Context(opts);
  const { planHeight, warnBlocks } = readinessFlags(opts, name);
  if (name !== "" && planHeight === 0n) throw new CliError("--verify with an upgrade name needs --plan-height: the tally of a plan is proven under its name and height");
  await verified(opts, async ({ client }) => {
    let plan = name === "" ? undefined : { name, height: planHeight };
    if (!plan) {
      const p = await client.currentPlan();
      note(verifiedLine(p.value ? `plan ${JSON.stringify(p.value.name)}` : "no plan scheduled (its absence)", p, opts.witness?.length ?? 0));
      if (!p.value) throw new CliError("no upgrade scheduled");
      plan = { name: p.value.name, height: p.value.height };
    }
    const r = await client.readiness(plan);
    const { tally, params } = r.value;
    note(verifiedLine(tally ? `the readiness tally of ${JSON.stringify(plan.name)} at ${plan.height}` : `no readiness tally of ${JSON.stringify(plan.name)} at ${plan.height} (its absence)`, r, opts.witness?.length ?? 0));
    if (!tally) throw new CliError(`no readiness tally for upgrade ${JSON.stringify(plan.name)} at height ${plan.height}`);
    printReadiness(tally, r.height, ctx.output, warnBlocks, params);
  });
}
