/**
 * `xupgrade query upgrade plan|applied|module_versions|readiness --verify` (docs/spec/light-client.md §9.2): the
 * answers of the plain queries, each proven against the app hash of a header the light client verified from a
 * trust root, followed by a `verification` section saying what was proven against what: the header (height, hash,
 * time, age), the trust root and whether it was ever confirmed, the witnesses that confirmed the header, and any
 * field printed but not proven. Loaded only when --verify is given (the bin builds it as a bundle of its own), so
 * plain queries stay as small as they were.
 *
 * Trust is never taken silently: without --trust-height/--trust-hash and without a saved root the command refuses,
 * unless --trust-on-first-use asks for the node's own latest header — then every output says so until a root is
 * given. Witnesses are required (--witness, repeatable) unless --without-witnesses says otherwise, which the output
 * reports. A latest header older than --max-age is refused, except when the verified state shows the chain halted
 * there for an upgrade, which is said.
 */
import { fromBase64, toHex } from "@cosmjs/encoding";
import type { Command } from "commander";
import { CometRpc, RpcError, isObject } from "../../../client/rpc.js";
import { httpTransport } from "../../../client/http.js";
import { HEIGHT } from "../../../go/option.js";
import { formatAge, NoWitnessConfirmedError, VerificationError } from "../../../light/errors.js";
import type { WitnessReport } from "../../../light/detector.js";
import { RpcProvider } from "../../../light/rpc-provider.js";
import {
  DEFAULT_MAX_AGE,
  NoTrustRootError,
  describeRoot,
  maxAgeMs,
  rememberVerified,
  resolveTrustRoot,
  unconfirmedWarning,
  type ResolvedRoot,
} from "../../../light/trust-root.js";
import { proveTxs } from "../../../light/txs.js";
import { formatTimestamp } from "../../../light/types.js";
import { VerifiedUpgradeClient, type Freshness, type Proven } from "../../../light/upgrade.js";
import { Context } from "../context.js";
import { CliError } from "../errors.js";
import { expectArgs, type QueryOpts, integerValue } from "../flags.js";
import { print, toIndentedJson } from "../output.js";
import type { JsonValue } from "../yaml.js";
import { planJson } from "./json.js";
import { printReadiness, readinessFlags, type ReadinessOpts } from "./readiness.js";
import { TrustFileStore } from "./trust-file.js";
import { verifiedBlockRecord } from "./verified-record.js";

export interface VerifyOpts extends QueryOpts {
  verify?: boolean;
  trustHeight?: string;
  trustHash?: string;
  trustingPeriod?: string;
  trustFile?: string;
  trustOnFirstUse?: boolean;
  witness?: string[];
  withoutWitnesses?: boolean;
  maxAge?: string;
  chainId?: string;
}

const note = (line: string) => process.stderr.write(`${line}\n`);
const upper = (b: Uint8Array) => toHex(b).toUpperCase();

interface Verified {
  client: VerifiedUpgradeClient;
  root: ResolvedRoot;
  fresh: Freshness;
  /** What each witness said of the verified header; all empty with --without-witnesses. */
  witnesses: WitnessReport;
  withoutWitnesses: boolean;
  rpc: CometRpc;
  save(): Promise<void>;
}

/** The flags' own contradictions and omissions, before any node is asked anything. */
function checkFlags(opts: VerifyOpts, ctx: Context): { maxAge: number } {
  if (ctx.height !== 0n) throw new CliError("--height cannot be used with --verify: the state just before the latest verified header is proven");
  if ((opts.trustHeight === undefined) !== (opts.trustHash === undefined)) throw new CliError("--trust-height and --trust-hash go together");
  if (opts.trustOnFirstUse && opts.trustHeight !== undefined)
    throw new CliError("--trust-on-first-use and --trust-height/--trust-hash contradict each other: a given root is not taken on first use");
  if ((opts.witness ?? []).length > 0 && opts.withoutWitnesses) throw new CliError("--witness and --without-witnesses contradict each other");
  try {
    return { maxAge: maxAgeMs(opts.maxAge ?? DEFAULT_MAX_AGE) };
  } catch {
    throw new CliError(`invalid --max-age ${JSON.stringify(opts.maxAge)}: a Go duration such as 10m or 1h30m, or 0 for no bound`);
  }
}

/** Resolves the trust root (flags, saved, or first use when asked), verifies the node's latest header and its freshness. */
async function connect(opts: VerifyOpts): Promise<Verified> {
  const ctx = new Context(opts);
  const { maxAge } = checkFlags(opts, ctx);
  const rpc = ctx.rpc();
  const provider = new RpcProvider(rpc);
  const store = new TrustFileStore(ctx.home, opts.trustFile);
  const given =
    opts.trustHeight === undefined
      ? undefined
      : { height: integerValue("--trust-height", opts.trustHeight, HEIGHT), hash: opts.trustHash!, how: "given" as const, confirmed: true };
  // What is missing — a root, a witness — is said at once, in one error, the root first.
  const missing: string[] = [];
  let root: ResolvedRoot | undefined;
  try {
    root = await resolveTrustRoot(provider, store, {
      node: rpc.label,
      given,
      chainId: opts.chainId,
      firstUse: opts.trustOnFirstUse === true,
      period: opts.trustingPeriod,
    });
  } catch (e) {
    if (!(e instanceof NoTrustRootError)) throw e;
    missing.push(
      `no trust root for chain ${JSON.stringify(e.chainId)} (${store.pathFor(e.chainId)} does not exist): pass --trust-height and --trust-hash, the height and hash ` +
        `of a recent block from a source you trust (your own node: curl <your-node>/commit, a validator, an explorer); or --trust-on-first-use to take ` +
        `${e.node}'s own latest header unverified, which every answer then says until you give a root`,
    );
  }
  if ((opts.witness ?? []).length === 0 && !opts.withoutWitnesses) {
    missing.push(
      "--verify needs at least one witness: --witness <rpc> names another node of the chain (repeatable) that must have the same headers, " +
        "so that one node alone cannot show you a fork; or pass --without-witnesses to verify against this node alone (the output says so)",
    );
  }
  if (!root || missing.length > 0) throw new CliError(missing.join("; and "));
  note(`trust root: ${describeRoot(root)}`);
  const warning = unconfirmedWarning(root);
  if (warning) note(warning);

  const witnessUrls = opts.witness ?? [];
  const client = await VerifiedUpgradeClient.connect(provider, {
    chainId: opts.chainId ?? (root.source === "saved" ? root.chainId : undefined),
    trust: root.trust,
    witnesses: witnessUrls.map((w) => new RpcProvider(new CometRpc(w, undefined, httpTransport))),
    withoutWitnesses: opts.withoutWitnesses === true,
  });
  if (opts.withoutWitnesses)
    note(
      "no witness: verified against this node alone (--without-witnesses) — it cannot forge a header, but it could show you a fork that only a witness would reveal",
    );
  const save = async () => {
    await rememberVerified(store, root, client.trustRoot());
  };
  await client.sync();
  let fresh: Freshness;
  try {
    fresh = await client.freshness({ maxAgeMs: maxAge });
  } catch (e) {
    await save(); // what was verified stays verified, also when it is too old to answer with
    throw e;
  }
  if (fresh.halted) {
    note(
      `no block since ${formatTimestamp(fresh.time)} (${formatAge(fresh.ageMs)} ago): the chain halted at height ${fresh.halted.height} for upgrade ${JSON.stringify(fresh.halted.upgrade)} (proven)`,
    );
  }
  const report = client.light.witnessReport(fresh.height) ?? { confirmed: [], faulty: [], unavailable: [] };
  for (const f of report.faulty) note(`witness ${f.witness} is faulty: ${f.reason}`);
  for (const u of report.unavailable) note(`witness ${u.witness} did not answer: ${u.reason}`);
  return { client, root, fresh, witnesses: report, withoutWitnesses: opts.withoutWitnesses === true, rpc, save };
}

/** The `verification` section every verified answer ends with: what was proven, against what, and what was not. */
function verificationJson(v: Verified, p: Proven<unknown>, unverified?: Record<string, JsonValue>): JsonValue {
  const h = p.header;
  const o = v.root.origin;
  const warnings: JsonValue[] = [];
  const w = unconfirmedWarning(v.root);
  if (w) warnings.push(w);
  if (v.withoutWitnesses) warnings.push("no witness confirmed the header (--without-witnesses): verified against one node");
  for (const f of v.witnesses.faulty) warnings.push(`witness ${f.witness} is faulty: ${f.reason}`);
  for (const u of v.witnesses.unavailable) warnings.push(`witness ${u.witness} did not answer: ${u.reason}`);
  const section: Record<string, JsonValue> = {
    state_height: p.height.toString(),
    header: {
      chain_id: h.chainId,
      height: h.height.toString(),
      hash: upper(h.hash),
      time: formatTimestamp(h.time),
      age: formatAge(v.fresh.ageMs),
      app_hash: upper(h.appHash),
    },
    trust_root: {
      source: v.root.source,
      confirmed: v.root.confirmed,
      height: BigInt(v.root.trust.height).toString(),
      hash: typeof v.root.trust.hash === "string" ? v.root.trust.hash.toUpperCase() : upper(v.root.trust.hash),
      trusted_since: { how: o.how, node: o.node, height: o.height.toString(), hash: o.hash, at: o.at },
    },
    witnesses: v.witnesses.confirmed,
    store_proofs: String(p.proofs),
  };
  if (v.fresh.halted) section.halted = { height: v.fresh.halted.height.toString(), upgrade: v.fresh.halted.upgrade, since: formatTimestamp(v.fresh.time) };
  if (unverified) section.unverified = unverified;
  section.warnings = warnings;
  return section;
}

/** The stderr line saying what a value was proven against. */
function verifiedLine(what: string, p: Proven<unknown>, v: Verified): string {
  const h = p.header;
  const n = v.witnesses.confirmed.length;
  const by = v.withoutWitnesses ? "no witness" : `confirmed by ${n} witness${n === 1 ? "" : "es"}`;
  return (
    `verified: ${what} at height ${p.height}, against the app hash ${upper(h.appHash)} of header ${h.height} (${upper(h.hash)}, ${h.chainId}, ` +
    `${formatTimestamp(h.time)}, ${formatAge(v.fresh.ageMs)} old), ${p.proofs} store proof${p.proofs === 1 ? "" : "s"}, ${by}` +
    (v.root.confirmed ? "" : ", UNCONFIRMED trust root")
  );
}

/**
 * Runs a verified query: every verification failure becomes `Error: verification failed: …`, except witnesses
 * that only did not answer (none faulty): nothing was contradicted, nothing was confirmed — `Error: not verified: …`.
 */
async function verified(opts: VerifyOpts, run: (v: Verified) => Promise<void>): Promise<void> {
  try {
    const v = await connect(opts);
    try {
      await run(v);
    } finally {
      // What was verified stays verified, also when the answer is "not found".
      await v.save();
    }
  } catch (e) {
    if (e instanceof NoWitnessConfirmedError && e.onlyUnavailable) throw new CliError(`not verified: ${e.message}`);
    if (e instanceof VerificationError) throw new CliError(`verification failed: ${e.message}`);
    throw e;
  }
}

export async function plan(opts: VerifyOpts, cmd: Command): Promise<void> {
  expectArgs(cmd, 0, 0);
  const ctx = new Context(opts);
  await verified(opts, async (v) => {
    const p = await v.client.currentPlan();
    note(verifiedLine(p.value ? `plan ${JSON.stringify(p.value.name)}` : "no plan scheduled (its absence)", p, v));
    if (!p.value) throw new CliError("no upgrade scheduled");
    print({ ...(planJson(p.value) as Record<string, JsonValue>), verification: verificationJson(v, p) }, ctx.output);
  });
}

export async function moduleVersions(opts: VerifyOpts, cmd: Command): Promise<void> {
  const [moduleName = ""] = expectArgs(cmd, 0, 1);
  const ctx = new Context(opts);
  await verified(opts, async (v) => {
    const p = await v.client.moduleVersions();
    note(verifiedLine(`all ${p.value.length} module versions (the whole range)`, p, v));
    const list = moduleName === "" ? p.value : p.value.filter((m) => m.name === moduleName);
    if (list.length === 0) throw new CliError("not found");
    print({ module_versions: list.map((m) => ({ name: m.name, version: m.version.toString() })), verification: verificationJson(v, p) }, ctx.output);
  });
}

/** The block's transactions from the node's `block`, or undefined when it does not keep the block. */
async function blockTxs(rpc: CometRpc, height: bigint): Promise<Uint8Array[] | undefined> {
  let res: Record<string, unknown>;
  try {
    res = await rpc.call("block", { height: height.toString() });
  } catch (e) {
    if (e instanceof RpcError) return undefined;
    throw e;
  }
  const block = isObject(res.block) ? res.block : undefined;
  const data = block && isObject(block.data) ? block.data : undefined;
  const txs = data?.txs ?? [];
  if (!Array.isArray(txs) || !txs.every((t) => typeof t === "string")) throw rpc.garbage("block", "block.data.txs is not a list of base64 strings");
  try {
    return txs.map((t) => fromBase64(t));
  } catch {
    throw rpc.garbage("block", "block.data.txs holds a string that is not base64");
  }
}

/** The node's block_size for a height (nothing proves it), or undefined. */
async function blockSize(rpc: CometRpc, height: bigint): Promise<string | undefined> {
  try {
    const res = await rpc.call("blockchain", { minHeight: height.toString(), maxHeight: height.toString() });
    const meta = Array.isArray(res.block_metas)
      ? res.block_metas.find((m) => isObject(m) && isObject(m.header) && String(m.header.height) === height.toString())
      : undefined;
    const size = isObject(meta) ? meta.block_size : undefined;
    return typeof size === "string" || typeof size === "number" ? String(size) : undefined;
  } catch (e) {
    if (e instanceof RpcError) return undefined;
    throw e;
  }
}

export async function applied(opts: VerifyOpts, cmd: Command): Promise<void> {
  const [name] = expectArgs(cmd, 1, 1);
  await verified(opts, async (v) => {
    const { client, rpc } = v;
    const p = await client.appliedPlan(name);
    note(
      verifiedLine(
        p.value === 0n ? `${JSON.stringify(name)} was not applied (every Done record)` : `${JSON.stringify(name)} applied at height ${p.value}`,
        p,
        v,
      ),
    );
    if (p.value === 0n) throw new CliError("no upgrade found");
    // The record is the verified header of that height; its block id as the verified header above it names it.
    const rec = await client.light.verifyBackwards(p.value);
    const above = client.light.trustedAt(p.value + 1n)?.signedHeader.header ?? (await client.light.verifyBackwards(p.value + 1n)).header;
    const txs = await blockTxs(rpc, p.value);
    const unverified: Record<string, JsonValue> = {};
    if (txs) proveTxs(rec.header, txs);
    else unverified.num_txs = "unknown: the node does not give the block's transactions";
    const size = await blockSize(rpc, p.value);
    unverified.block_size = size ?? "unknown";
    note(
      `verified: the block record of height ${p.value} (${upper(rec.hash)}), by the hash chain down from header ${client.header.height}` +
        (txs ? `, its ${txs.length} transactions by its data_hash` : ""),
    );
    const record = verifiedBlockRecord(rec.header, above.lastBlockId, txs?.length ?? 0) as Record<string, JsonValue>;
    if (!txs) delete record.num_txs;
    process.stdout.write(toIndentedJson({ ...record, verification: verificationJson(v, p, unverified) }) + "\n");
  });
}

/** `query upgrade readiness --verify` (docs/spec/readiness.md §10): the tally's value in the readiness store, proven. */
export async function readiness(opts: VerifyOpts & ReadinessOpts, cmd: Command): Promise<void> {
  const [name = ""] = expectArgs(cmd, 0, 1);
  const ctx = new Context(opts);
  const { planHeight, warnBlocks } = readinessFlags(opts, name);
  if (name !== "" && planHeight === 0n)
    throw new CliError("--verify with an upgrade name needs --plan-height: the tally of a plan is proven under its name and height");
  await verified(opts, async (v) => {
    const { client } = v;
    let plan = name === "" ? undefined : { name, height: planHeight };
    if (!plan) {
      const p = await client.currentPlan();
      note(verifiedLine(p.value ? `plan ${JSON.stringify(p.value.name)}` : "no plan scheduled (its absence)", p, v));
      if (!p.value) throw new CliError("no upgrade scheduled");
      plan = { name: p.value.name, height: p.value.height };
    }
    const r = await client.readiness(plan);
    const { tally, params } = r.value;
    note(
      verifiedLine(
        tally
          ? `the readiness tally of ${JSON.stringify(plan.name)} at ${plan.height}`
          : `no readiness tally of ${JSON.stringify(plan.name)} at ${plan.height} (its absence)`,
        r,
        v,
      ),
    );
    if (!tally) throw new CliError(`no readiness tally for upgrade ${JSON.stringify(plan.name)} at height ${plan.height}`);
    printReadiness(tally, r.height, ctx.output, warnBlocks, params, verificationJson(v, r));
  });
}
