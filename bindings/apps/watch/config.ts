/**
 * The watch's config (docs/spec/watch.md §3): the chains to follow — each one's RPC endpoint, witnesses and trust
 * root — the webhooks, the lead times and the rest, read from a parsed TOML or JSON document (snake_case keys,
 * durations as Go durations). Pure: `xupgrade watch` reads the file (./config-file.ts), the fleet page fetches one.
 *
 * Trust follows the light client's rules (docs/spec/light-client.md §2.1): a chain's root is the config's
 * `trust_height` + `trust_hash`, or the root saved last time, or none — and then the chain is refused, unless the
 * config says `trust_on_first_use = true`, and that chain is "unconfirmed" in every output. Witnesses are
 * required unless `without_witnesses = true`, which every output reports. A chain-registry file gives ids and
 * endpoints only, never a root.
 */
import { HOUR, MINUTE, MS, SECOND, parseGoDuration } from "../../go/duration.js";
import { WatchConfigError } from "./errors.js";
import { registryChain, type RegistryChain } from "./registry.js";

export type WebhookFormat = "slack" | "discord" | "telegram" | "json";
export const WEBHOOK_FORMATS: readonly WebhookFormat[] = ["slack", "discord", "telegram", "json"];

export interface WebhookConfig {
  url: string;
  format: WebhookFormat;
  /** Telegram's `chat_id` (required for telegram). */
  chatId?: string;
  /** Only these chains (by name); every chain when absent. */
  chains?: string[];
}

export interface ChainConfig {
  /** The row's name and the key of everything kept for the chain (unique). */
  name: string;
  /** The chain id expected (the config's, else the registry's); the node's own when absent. */
  chainId?: string;
  /** The primary node's RPC URL. */
  rpc: string;
  witnesses: string[];
  withoutWitnesses: boolean;
  /** A root from a source the operator trusts: confirmed. */
  trust?: { height: bigint; hash: string };
  trustOnFirstUse: boolean;
  trustingPeriod?: string;
  /** How the chain's state is proven (bindings/light/chains.ts); default the Cosmos SDK's. */
  stateSpec?: string;
  /** The local visor's endpoint (DAEMON_HTTP_ADDRESS), when one runs on this machine for the chain. */
  visor?: string;
  /** The chain's own status page, linked from its row. */
  page?: string;
  /** Where the id and endpoints came from, when a chain-registry file gave them. */
  registry?: string;
}

export interface WatchConfig {
  chains: ChainConfig[];
  webhooks: WebhookConfig[];
  /** Lead times before the ETA, longest first (ms). */
  leadsMs: number[];
  pollMs: number;
  /** How far back header times are kept for the ETA (ms). */
  historyWindowMs: number;
  /** A latest header older than this is refused as stale, unless the chain is halted for its plan (ms). */
  maxAgeMs: number;
  stillHaltedAfterMs: number;
  /** Readiness below this share of the power near the height alerts (0–1). */
  readinessThreshold: number;
  readinessWithinMs: number;
  /** The HTTP address `watch` serves the fleet view, feeds and /metrics on (host:port). */
  listen?: string;
  stateDir?: string;
  /** Webhook retries before a delivery is given up (default 8), and the first pause (default 1 s). */
  retries: number;
  backoffMs: number;
  timeoutMs: number;
}

export const DEFAULT_LEADS = ["24h", "2h", "10m"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The registry files a config names, parsed by whoever can read them (a path or URL → its JSON). */
export type RegistryFiles = ReadonlyMap<string, unknown>;

/** The `registry` entries of a parsed config, so the caller can read them before parsing it. */
export function registryRefs(raw: unknown): string[] {
  const chains = isObject(raw) && Array.isArray(raw.chains) ? raw.chains : [];
  return chains.flatMap((c) => (isObject(c) && typeof c.registry === "string" ? [c.registry] : []));
}

class Reader {
  readonly problems: string[] = [];
  constructor(
    private readonly o: Record<string, unknown>,
    private readonly where: string,
  ) {}

  private bad(key: string, what: string): undefined {
    this.problems.push(`${this.where}${key}: ${what}`);
    return undefined;
  }

  string(key: string): string | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || v.trim() === "") return this.bad(key, "must be a non-empty string");
    return v.trim();
  }

  strings(key: string): string[] | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v === "string") return [v];
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string" && x.trim() !== "")) return this.bad(key, "must be a list of strings");
    return v.map((x: string) => x.trim());
  }

  bool(key: string): boolean | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") return this.bad(key, "must be true or false");
    return v;
  }

  number(key: string, min: number, max: number): number | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max) return this.bad(key, `must be a number from ${min} to ${max}`);
    return v;
  }

  height(key: string): bigint | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    const text = typeof v === "bigint" || typeof v === "number" ? String(v) : typeof v === "string" ? v : "";
    if (!/^[1-9][0-9]{0,18}$/.test(text)) return this.bad(key, "must be a positive height");
    return BigInt(text);
  }

  /** A Go duration ("10m", "2h30m") → ms, at least `minMs`. */
  duration(key: string, minMs: number): number | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    return this.durationValue(key, v, minMs);
  }

  durationValue(key: string, v: unknown, minMs: number): number | undefined {
    if (typeof v !== "string") return this.bad(key, `must be a duration such as "10m"`);
    let ns: bigint;
    try {
      ns = parseGoDuration(v);
    } catch (e) {
      return this.bad(key, (e as Error).message);
    }
    const ms = Number(ns / MS);
    if (ms < minMs) return this.bad(key, `must be at least ${minMs} ms`);
    return ms;
  }

  unknown(known: readonly string[]): void {
    for (const k of Object.keys(this.o)) if (!known.includes(k)) this.problems.push(`${this.where}${k}: unknown key (known: ${known.join(", ")})`);
  }
}

const TOP_KEYS = [
  "chains",
  "webhooks",
  "leads",
  "poll",
  "history_window",
  "max_age",
  "still_halted_after",
  "readiness_threshold",
  "readiness_within",
  "listen",
  "state_dir",
  "webhook_retries",
  "webhook_backoff",
  "webhook_timeout",
] as const;
const CHAIN_KEYS = [
  "name",
  "chain_id",
  "registry",
  "rpc",
  "witnesses",
  "without_witnesses",
  "trust_height",
  "trust_hash",
  "trust_on_first_use",
  "trusting_period",
  "state",
  "visor",
  "page",
] as const;
const WEBHOOK_KEYS = ["url", "format", "chat_id", "chains"] as const;
const URL_RE = /^(https?|tcp):\/\/[^\s]+$/;

function parseChain(c: unknown, i: number, registries: RegistryFiles, problems: string[]): ChainConfig | undefined {
  const where = `chains[${i}].`;
  if (!isObject(c)) {
    problems.push(`chains[${i}]: must be a table`);
    return undefined;
  }
  const r = new Reader(c, where);
  r.unknown(CHAIN_KEYS);
  const registryRef = r.string("registry");
  let reg: RegistryChain | undefined;
  if (registryRef !== undefined) {
    const json = registries.get(registryRef);
    if (json === undefined) r.problems.push(`${where}registry: ${registryRef} could not be read`);
    else {
      const got = registryChain(json, registryRef);
      if ("problems" in got) r.problems.push(...got.problems);
      else reg = got;
    }
  }
  const configured = r.string("chain_id");
  if (configured && reg && configured !== reg.chainId) r.problems.push(`${where}chain_id: ${configured} is not the registry's ${reg.chainId}`);
  const chainId = configured ?? reg?.chainId;
  const name = r.string("name") ?? reg?.name ?? chainId;
  if (!name) r.problems.push(`${where}name: give the chain a name (or a chain_id or registry)`);
  else if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
    r.problems.push(`${where}name: ${JSON.stringify(name)} must be letters, digits, . _ - (at most 64)`);
  // The registry's first endpoint is the primary and the next two its witnesses, unless the config names them.
  const rpc = r.string("rpc") ?? reg?.rpc[0];
  if (!rpc) r.problems.push(`${where}rpc: the chain's RPC endpoint is missing${reg ? ` (the registry lists none)` : ""}`);
  else if (!URL_RE.test(rpc)) r.problems.push(`${where}rpc: ${JSON.stringify(rpc)} is not an http(s):// or tcp:// URL`);
  const withoutWitnesses = r.bool("without_witnesses") ?? false;
  const listed = r.strings("witnesses");
  const witnesses = listed ?? (withoutWitnesses ? [] : (reg?.rpc.filter((u) => u !== rpc).slice(0, 2) ?? []));
  for (const w of witnesses) if (!URL_RE.test(w)) r.problems.push(`${where}witnesses: ${JSON.stringify(w)} is not an http(s):// or tcp:// URL`);
  if (withoutWitnesses && witnesses.length > 0) r.problems.push(`${where}: without_witnesses = true and witnesses are given: drop one or the other`);
  if (!withoutWitnesses && witnesses.length === 0) {
    r.problems.push(
      `${where}witnesses: at least one witness (another node of the chain that must have the same headers) is required, so that one node alone cannot show a fork; ` +
        "or set without_witnesses = true to follow this node alone (every output says so)",
    );
  }
  const height = r.height("trust_height");
  const hash = r.string("trust_hash");
  if ((height === undefined) !== (hash === undefined)) r.problems.push(`${where}trust_height and trust_hash go together`);
  if (hash !== undefined && !/^(0x)?[0-9A-Fa-f]{64}$/.test(hash)) r.problems.push(`${where}trust_hash: must be 64 hex digits`);
  const trustOnFirstUse = r.bool("trust_on_first_use") ?? false;
  if (trustOnFirstUse && height !== undefined) r.problems.push(`${where}: trust_on_first_use and trust_height/trust_hash contradict each other`);
  const trustingPeriod = r.string("trusting_period");
  if (trustingPeriod !== undefined) r.durationValue("trusting_period", trustingPeriod, 1000);
  const visor = r.string("visor");
  if (visor !== undefined && !/^https?:\/\//.test(visor)) r.problems.push(`${where}visor: must be the visor's http:// endpoint`);
  const page = r.string("page");
  const stateSpec = r.string("state");
  problems.push(...r.problems);
  if (r.problems.length > 0) return undefined;
  return {
    name: name!,
    chainId,
    rpc: rpc!.replace(/\/+$/, ""),
    witnesses: witnesses.map((w) => w.replace(/\/+$/, "")),
    withoutWitnesses,
    trust: height !== undefined ? { height, hash: hash!.replace(/^0x/i, "").toUpperCase() } : undefined,
    trustOnFirstUse,
    trustingPeriod,
    stateSpec,
    visor,
    page,
    registry: registryRef,
  };
}

function parseWebhook(w: unknown, i: number, chains: readonly string[], problems: string[]): WebhookConfig | undefined {
  const where = `webhooks[${i}].`;
  if (!isObject(w)) {
    problems.push(`webhooks[${i}]: must be a table`);
    return undefined;
  }
  const r = new Reader(w, where);
  r.unknown(WEBHOOK_KEYS);
  const url = r.string("url");
  if (!url) r.problems.push(`${where}url: missing`);
  else if (!/^https?:\/\//.test(url)) r.problems.push(`${where}url: must be an http(s):// URL`);
  const format = (r.string("format") ?? "json") as WebhookFormat;
  if (!WEBHOOK_FORMATS.includes(format)) r.problems.push(`${where}format: must be one of ${WEBHOOK_FORMATS.join(", ")}`);
  const chatId = r.string("chat_id");
  if (format === "telegram" && !chatId) r.problems.push(`${where}chat_id: telegram needs the chat to send to`);
  const only = r.strings("chains");
  for (const c of only ?? []) if (!chains.includes(c)) r.problems.push(`${where}chains: no chain is named ${JSON.stringify(c)}`);
  problems.push(...r.problems);
  return r.problems.length > 0 ? undefined : { url: url!, format, chatId, chains: only };
}

/** The config from a parsed document; every problem at once (WatchConfigError). */
export function parseWatchConfig(raw: unknown, registries: RegistryFiles = new Map()): WatchConfig {
  if (!isObject(raw)) throw new WatchConfigError(["the watch config must be a table (TOML) or an object (JSON)"]);
  const r = new Reader(raw, "");
  r.unknown(TOP_KEYS);
  const problems = r.problems;
  const rawChains = Array.isArray(raw.chains) ? raw.chains : [];
  if (rawChains.length === 0) problems.push("chains: no chain to watch ([[chains]] with at least a name, rpc and a trust root)");
  const parsed = rawChains.map((c, i) => parseChain(c, i, registries, problems));
  const chains = parsed.filter((c): c is ChainConfig => c !== undefined);
  // A chain with other problems still takes the name it was given.
  const names = parsed
    .map((c, i) => c?.name ?? (isObject(rawChains[i]) && typeof rawChains[i].name === "string" ? rawChains[i].name.trim() : ""))
    .filter((n) => n !== "");
  for (const [i, n] of names.entries()) if (names.indexOf(n) !== i) problems.push(`chains: two chains are named ${JSON.stringify(n)}`);
  const rawHooks = raw.webhooks === undefined ? [] : Array.isArray(raw.webhooks) ? raw.webhooks : (problems.push("webhooks: must be a list"), []);
  const webhooks = rawHooks.map((w, i) => parseWebhook(w, i, names, problems)).filter((w): w is WebhookConfig => w !== undefined);
  const leadTexts = r.strings("leads") ?? DEFAULT_LEADS;
  const leadsMs = leadTexts.map((l, i) => r.durationValue(`leads[${i}]`, l, 1000)).filter((x): x is number => x !== undefined);
  if (new Set(leadsMs).size !== leadsMs.length) problems.push("leads: the same lead time twice");
  const cfg: WatchConfig = {
    chains,
    webhooks,
    leadsMs: leadsMs.sort((a, b) => b - a),
    pollMs: r.duration("poll", 10) ?? 5000,
    historyWindowMs: r.duration("history_window", Number(MINUTE / MS)) ?? Number((72n * HOUR) / MS),
    maxAgeMs: r.duration("max_age", 0) ?? Number((10n * MINUTE) / MS),
    stillHaltedAfterMs: r.duration("still_halted_after", 1000) ?? Number((30n * MINUTE) / MS),
    readinessThreshold: r.number("readiness_threshold", 0, 1) ?? 2 / 3,
    readinessWithinMs: r.duration("readiness_within", 0) ?? Number((2n * HOUR) / MS),
    listen: r.string("listen"),
    stateDir: r.string("state_dir"),
    retries: r.number("webhook_retries", 0, 100) ?? 8,
    backoffMs: r.duration("webhook_backoff", 1) ?? Number(SECOND / MS),
    timeoutMs: r.duration("webhook_timeout", 1) ?? 10_000,
  };
  if (problems.length > 0) throw new WatchConfigError(problems);
  return cfg;
}
