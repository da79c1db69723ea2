/**
 * Raw-store mode: the upgrade store's keys read through `abci_query` and decoded in the browser by the
 * package's core, as a light client would (docs/spec/keeper.md §2 layout):
 *   0x00            the plan (cosmos.upgrade.v1beta1.Plan)     /store/upgrade/key
 *   0x01 <name>     done: int64 big-endian height              /store/upgrade/subspace (Pairs)
 *   0x02 <module>   module version: uint64 big-endian          /store/upgrade/subspace (Pairs)
 *   0x03            protocol (app) version: uint64 big-endian  /store/upgrade/key
 * Done records may also be in the Cosmos SDK's layout (v0.46 and later), `0x01 <BE64 height> <name> → 01`:
 * the core tells the two apart (decodeDoneEntriesAnyLayout) and the page says which one it found.
 */
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { Core, DoneLayout } from "xupgrade";
import { failed, ok, type Part, type UpgradeState } from "./model.js";
import { Problem, toProblem } from "./net.js";
import type { RpcClient } from "./rpc.js";

export interface RawState extends UpgradeState {
  /** The protocol version stored under 0x03 (0 when absent). */
  protocolVersion: Part<bigint>;
  /** Every raw (key, value) read, hex, in key order: what the core decoded. */
  entries: { key: string; value: string }[];
  /** The layout of the done records (range 0x01) the core found; undefined when there are none or they did not decode. */
  doneLayout: DoneLayout | undefined;
}

/** What the page says about the layout of the done records it decoded. */
export function doneLayoutText(layout: DoneLayout): string {
  return layout === "sdk"
    ? "Done records: SDK layout (height in the key) — 01 ‖ BE64(height) ‖ name → 01, as Cosmos SDK v0.46 and later store them."
    : "Done records: seed layout (height in the value) — 01 ‖ name → BE64(height), as xupgrade stores them.";
}

export async function readRawState(rpc: RpcClient, core: Core): Promise<RawState> {
  const part = <T>(p: Promise<Part<T>>) => p.catch((e: unknown) => failed<T>(toProblem(e, "raw store")));
  const entries: { key: string; value: string }[] = [];
  const key = async (k: string) => {
    const answer = await rpc.abciQuery("/store/upgrade/key", k);
    if (answer.value.length) entries.push({ key: k, value: hex(answer.value, 96) });
    return answer;
  };
  const range = async (prefix: string) => {
    const answer = await subspace(rpc, prefix);
    answer.keys.forEach((k, i) => entries.push({ key: hex(k), value: hex(answer.values[i], 96) }));
    return answer;
  };
  let doneLayout: DoneLayout | undefined;
  const [plan, protocolVersion, applied, versions] = await Promise.all([
    part(
      key("00").then(({ value, height }) =>
        ok(value.length === 0 ? undefined : decodeWith(() => core.decodePlan(value), "the plan (key 0x00)", value), height),
      ),
    ),
    part(
      key("03").then(({ value, height }) =>
        ok(value.length === 0 ? 0n : decodeWith(() => core.decodeUint64BE(value), "the protocol version (key 0x03)", value), height),
      ),
    ),
    part(
      range("01").then(({ keys, values, height }) => {
        // Either layout: the core decides which one the records are in, and refuses a mix or neither.
        const done = decodeWith(() => core.decodeDoneEntriesAnyLayout(keys, values), "an applied-upgrade entry (range 0x01)");
        doneLayout = done.layout;
        return ok(
          done.entries.sort((a, b) => (a.height < b.height ? -1 : a.height > b.height ? 1 : 0)),
          height,
        );
      }),
    ),
    part(
      range("02").then(({ keys, values, height }) =>
        ok(
          decodeWith(() => core.decodeModuleVersionEntries(keys, values), "a module version (range 0x02)"),
          height,
        ),
      ),
    ),
  ]);
  entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { source: "raw", plan, applied, versions, protocolVersion, entries, doneLayout };
}

/** `/store/upgrade/subspace` answers cosmos.base.kv.v1beta1.Pairs { repeated Pair pairs = 1 } of full keys. */
async function subspace(rpc: RpcClient, prefix: string): Promise<{ keys: Uint8Array[]; values: Uint8Array[]; height: bigint }> {
  const { value, height } = await rpc.abciQuery("/store/upgrade/subspace", prefix);
  try {
    return { ...decodePairs(value), height };
  } catch (e) {
    throw new Problem(
      "garbage",
      `abci_query /store/upgrade/subspace ${prefix} answered bytes that are not cosmos.base.kv.v1beta1.Pairs (${e instanceof Error ? e.message : String(e)}): ${hex(value, 32)}`,
    );
  }
}

/** Pairs { repeated Pair pairs = 1 }, Pair { bytes key = 1; bytes value = 2 }, with @bufbuild/protobuf's wire reader. */
export function decodePairs(bytes: Uint8Array): { keys: Uint8Array[]; values: Uint8Array[] } {
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [no, type] = reader.tag();
    if (no !== 1 || type !== WireType.LengthDelimited) {
      reader.skip(type, no);
      continue;
    }
    const pair = new BinaryReader(reader.bytes());
    let key: Uint8Array = new Uint8Array(0);
    let value: Uint8Array = new Uint8Array(0);
    while (pair.pos < pair.len) {
      const [n, t] = pair.tag();
      if (n === 1 && t === WireType.LengthDelimited) key = pair.bytes();
      else if (n === 2 && t === WireType.LengthDelimited) value = pair.bytes();
      else pair.skip(t, n);
    }
    keys.push(key);
    values.push(value);
  }
  return { keys, values };
}

function decodeWith<T>(decode: () => T, what: string, value?: Uint8Array): T {
  try {
    return decode();
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new Problem(
      "corrupt",
      `The upgrade store holds a corrupt value: ${what} cannot be decoded — ${reason}.${value ? ` Raw bytes: ${hex(value, 48)}` : ""}`,
    );
  }
}

export function hex(bytes: Uint8Array, max = Infinity): string {
  let s = "";
  for (const b of bytes.subarray(0, Math.min(bytes.length, max))) s += b.toString(16).padStart(2, "0");
  return bytes.length > max ? `${s}… (${bytes.length} bytes)` : s || "(empty)";
}
