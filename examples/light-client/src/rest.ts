/**
 * The upgrade module's REST API (grpc-gateway JSON, docs/spec/interfaces.md §3). REST has no "list applied upgrades"
 * query: the page asks `applied_plan/{name}` for the names it knows (from the store's 0x01 range and from
 * plans it has seen).
 */
import { failed, ok, type AppliedView, type Part, type PlanView, type UpgradeState, type VersionView } from "./model.js";
import { field, getJson, httpProblem, int, originOf, toProblem } from "./net.js";

const PREFIX = "/cosmos/upgrade/v1beta1";
const HEIGHT = "x-cosmos-block-height";

export class RestClient {
  constructor(readonly base: string) {}

  private async get(path: string, what: string, height?: bigint): Promise<{ json: unknown; at: bigint | undefined }> {
    const url = `${this.base}${path}`;
    const headers = height === undefined ? undefined : { [HEIGHT]: height.toString() };
    const { json, status, headers: answer } = await getJson(url, what, { headers, acceptErrorStatus: true });
    if (status >= 400) throw httpProblem(what, originOf(url), status, json);
    const h = answer.get(HEIGHT);
    return { json, at: h && /^[0-9]+$/.test(h) ? BigInt(h) : undefined };
  }

  async currentPlan(): Promise<Part<PlanView | undefined>> {
    const what = "REST current_plan";
    const { json, at } = await this.get(`${PREFIX}/current_plan`, what);
    const plan = field(json, "plan", what, "any");
    if (plan === null) return ok(undefined, at);
    return ok({ name: field(plan, "name", what), height: int(field(plan, "height", what), what, "plan.height"), info: field(plan, "info", what) }, at);
  }

  async appliedHeight(name: string): Promise<{ height: bigint; at: bigint | undefined }> {
    const what = `REST applied_plan/${name}`;
    const { json, at } = await this.get(`${PREFIX}/applied_plan/${encodeURIComponent(name)}`, what);
    return { height: int(field(json, "height", what), what, "height"), at };
  }

  /** All module versions, at the latest height or at `height` (a node without that state answers an error). */
  async moduleVersions(height?: bigint): Promise<Part<VersionView[]>> {
    const what = "REST module_versions";
    const { json, at } = await this.get(`${PREFIX}/module_versions`, what, height);
    const list = field(json, "module_versions", what, "array");
    return ok(
      list.map((m) => ({ name: field(m, "name", what), version: int(field(m, "version", what), what, "version") })),
      at,
    );
  }
}

/** Plan, versions and the applied heights of `names` through REST; each part fails on its own. */
export async function readRestState(rest: RestClient, names: Promise<string[]>): Promise<UpgradeState> {
  const part = <T>(p: Promise<Part<T>>) => p.catch((e: unknown) => failed<T>(toProblem(e, "REST")));
  const planP = part(rest.currentPlan());
  // Without a working current_plan, "no applied upgrade among the known names" would be a guess: fail alike.
  const appliedP = planP.then((p) => (p.ok ? part(applieds(rest, names)) : failed<AppliedView[]>(p.problem)));
  const [plan, versions, applied] = await Promise.all([planP, part(rest.moduleVersions()), appliedP]);
  return { source: "rest", plan, versions, applied };
}

async function applieds(rest: RestClient, names: Promise<string[]>): Promise<Part<AppliedView[]>> {
  const answers = await Promise.all((await names).map(async (name) => ({ name, ...(await rest.appliedHeight(name)) })));
  const applied = answers.filter((a) => a.height > 0n).map(({ name, height }) => ({ name, height }));
  applied.sort((a, b) => (a.height < b.height ? -1 : a.height > b.height ? 1 : 0));
  const heights = answers.map((a) => a.at).filter((h): h is bigint => h !== undefined);
  return ok(applied, heights.length ? heights.reduce((a, b) => (a < b ? a : b)) : undefined);
}
