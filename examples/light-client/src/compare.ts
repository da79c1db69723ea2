/** Do the REST answers and the raw store, decoded in the browser, say the same thing? */
import type { AppliedView, Part, PlanView, UpgradeState, VersionView } from "./model.js";
import type { Problem, ProblemKind } from "./net.js";

export type Verdict = "agree" | "differ" | "moving" | "unknown";

export interface Agreement {
  topic: string;
  verdict: Verdict;
  detail: string;
}

const planText = (p: PlanView | undefined) => (p ? `“${p.name}” at height ${p.height}${p.info ? " with info" : ""}` : "no plan");
const planKey = (p: PlanView | undefined) => (p ? `“${p.name}” at height ${p.height}, info ${JSON.stringify(p.info)}` : "no plan");
const appliedText = (a: AppliedView[]) => (a.length ? a.map((u) => `${u.name}@${u.height}`).join(", ") : "none");
const versionsText = (v: VersionView[]) => (v.length ? v.map((m) => `${m.name}=${m.version}`).join(", ") : "none");

export function compareStates(rest: UpgradeState, raw: UpgradeState): Agreement[] {
  return [
    one("scheduled plan", rest.plan, raw.plan, planKey, planText),
    one("applied upgrades", rest.applied, raw.applied, appliedText, appliedText),
    one("module versions", rest.versions, raw.versions, versionsText, (v) => `${v.length} modules, same versions`),
  ];
}

/** The app version the store keeps under 0x03 against the one the RPC `status` reports. */
export function compareAppVersion(stored: Part<bigint>, status: string | undefined): Agreement {
  const topic = "app (protocol) version";
  if (!stored.ok) return { topic, verdict: "unknown", detail: `cannot compare: ${unread("the raw store", stored.problem)}` };
  if (status === undefined) return { topic, verdict: "unknown", detail: "the RPC status is not available" };
  if (stored.value.toString() === status) return { topic, verdict: "agree", detail: `${status} (store key 0x03 = RPC status)` };
  // Cosmos SDK nodes (simd v0.50) report app version 0 in their status whatever the store holds.
  if (status === "0")
    return { topic, verdict: "unknown", detail: `store key 0x03 says ${stored.value}, RPC status says 0 (the node does not report its app version)` };
  return { topic, verdict: "differ", detail: `store key 0x03 says ${stored.value}, RPC status says ${status}` };
}

const KIND: Record<ProblemKind, string> = {
  corrupt: "a corrupt store value",
  cors: "CORS refused",
  unreachable: "unreachable",
  timeout: "no answer in time",
  http: "an HTTP error",
  garbage: "an unreadable answer",
  rpc: "an RPC error",
  abci: "an abci_query error",
  "bad-url": "a bad address",
  internal: "a page error",
};

/** Short: the full wording is in the banner and the cards. */
function unread(side: string, problem: Problem): string {
  return `${side} could not be read (${KIND[problem.kind]})`;
}

function one<T>(topic: string, rest: Part<T>, raw: Part<T>, key: (v: T) => string, text: (v: T) => string): Agreement {
  if (!rest.ok && !raw.ok)
    return { topic, verdict: "unknown", detail: `cannot compare: ${unread("REST", rest.problem)}, ${unread("the raw store", raw.problem)}` };
  if (!rest.ok) return { topic, verdict: "unknown", detail: `cannot compare: ${unread("REST", rest.problem)}` };
  if (!raw.ok) return { topic, verdict: "unknown", detail: `cannot compare: ${unread("the raw store", raw.problem)}` };
  if (key(rest.value) === key(raw.value)) return { topic, verdict: "agree", detail: text(rest.value) };
  const detail = `REST: ${key(rest.value)}; raw store: ${key(raw.value)}`;
  // The two reads may straddle a block: a difference only counts when both were read at the same height.
  if (rest.at === undefined || raw.at === undefined || rest.at !== raw.at) {
    return { topic, verdict: "moving", detail: `${detail} (read at heights ${rest.at ?? "?"} and ${raw.at ?? "?"}; rechecking)` };
  }
  return { topic, verdict: "differ", detail: `${detail} (both at height ${rest.at})` };
}
