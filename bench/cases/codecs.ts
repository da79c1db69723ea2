/** Case 5: the batch codecs a light client runs over raw store entries, 10,000 at a time. */
import type { Backend } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import { BACKENDS, rawEntries } from "../fixtures.js";
import { type BenchTask, timed } from "../harness.js";

const N = 10_000;

export async function batchCodecs(backends: readonly Backend[] = BACKENDS): Promise<BenchTask[][]> {
  const done: BenchTask[] = [];
  const versions: BenchTask[] = [];
  const heights: BenchTask[] = [];
  const js = await loadCore("js");
  const doneRaw = rawEntries(js, "done", N);
  const versionRaw = rawEntries(js, "version", N);
  const hs = BigInt64Array.from({ length: N }, (_, i) => 1_000_000n + BigInt(i) * 997n);
  for (const backend of backends) {
    const core = await loadCore(backend);
    done.push({
      case: 5,
      id: `decodeDoneEntries, ${N} entries`,
      impl: backend,
      ops: 1,
      sample: timed(1, () => {
        if (core.decodeDoneEntries(doneRaw.keys, doneRaw.values).length !== N) throw new Error("short");
      }),
    });
    versions.push({
      case: 5,
      id: `decodeModuleVersionEntries, ${N} entries`,
      impl: backend,
      ops: 1,
      sample: timed(1, () => {
        if (core.decodeModuleVersionEntries(versionRaw.keys, versionRaw.values).length !== N) throw new Error("short");
      }),
    });
    heights.push({
      case: 5,
      id: `encodeHeightsBE, ${N} heights`,
      impl: backend,
      ops: 1,
      sample: timed(1, () => {
        if (core.encodeHeightsBE(hs).length !== N * 8) throw new Error("short");
      }),
    });
  }
  return [done, versions, heights];
}
