// The numbers both sides of the WebAssembly boundary must agree on — status codes, decode-failure reasons,
// PreBlock actions, coin statuses, store key prefixes, done-record layouts, kvGetPlan's UNCHANGED and the
// result header's offsets — are written once, as `export const` declarations in assembly/. This script
// gives the host its copy, in two steps around the compiler (`npm run build:wasm`):
//
//   node scripts/constants.mjs table   before asc: collects the names and writes assembly/constants.generated.ts,
//                                       a table [count, value…] of those constants that the core exports
//                                       (constantTable), so the compiled module carries the values the
//                                       compiler gave them;
//   node scripts/constants.mjs ts      after asc: reads that table out of build/release.wasm and writes
//                                       bindings/core/constants.generated.ts, which both cores import.
//
// Both generated files are committed: `npm run typecheck`, the light-client build and a fresh clone need
// the TypeScript one before anything is built, `npm run build:wasm:debug` compiles the table without this
// script, and a change of a constant then shows up as a reviewable diff. test/core/constants.test.ts
// compares the TypeScript file with build/release.wasm value by value.
import { readFileSync } from "node:fs";
import { writeGenerated } from "./write-generated.mjs";

const root = new URL("../", import.meta.url);
const read = (path) => readFileSync(new URL(path, root), "utf8");

/**
 * Which `export const` of which assembly file goes where, in output order. A constant takes the first rule
 * of its file that matches its name; constants no rule matches (region ids, static-data pointers) stay
 * inside the core.
 * `object` groups become `{ PascalCaseName: value }` objects (prefix stripped); `flat` ones keep their names.
 */
const RULES = [
  { file: "status.ts", match: /^(?!M_|ACT_)/, object: "Status", strip: "", doc: "the status of a core call (docs/spec/core.md §11.1)." },
  { file: "status.ts", match: /^M_/, object: "Malformed", strip: "M_", doc: "why bytes did not decode as protobuf, in H_REASON (§11.2)." },
  { file: "status.ts", match: /^ACT_/, object: "Action", strip: "ACT_", doc: "what a successful preBlock returns; a negative result is -status (§11.3)." },
  { file: "coin.ts", match: /^COIN_/, object: "CoinStatus", strip: "COIN_", doc: "the result of parseCoin (§6)." },
  { file: "keys.ts", match: /_PREFIX$/, flat: true, doc: "the first byte of each store key." },
  { file: "entries.ts", match: /^LAYOUT_/, object: "Layout", strip: "LAYOUT_", doc: "the layout of done records decodeDoneEntriesAnyLayout found (§2.6)." },
  { file: "ics23-reasons.ts", match: /^E_/, object: "Ics23Reason", strip: "E_", doc: "why an ICS23 proof was refused (§14.4)." },
  { file: "ics23-reasons.ts", match: /^W_/, object: "Ics23Where", strip: "W_", doc: "where in an existence proof a check failed (§14.4)." },
  { file: "ics23-reasons.ts", match: /^S_/, object: "Ics23Side", strip: "S_", doc: "which neighbour of a non-existence proof failed (§14.4)." },
  { file: "ics23-reasons.ts", match: /^N_/, object: "Ics23Form", strip: "N_", doc: "which non-canonical form an ICS23 proof was refused for (§14.2)." },
  {
    file: "ics23-reasons.ts",
    match: /^MSG_/,
    object: "Ics23Message",
    strip: "MSG_",
    doc: "the message of a CommitmentProof a non-canonical form is in (§14.2).",
  },
  {
    file: "ics23-reasons.ts",
    match: /^F_/,
    object: "Ics23Fact",
    strip: "F_",
    doc: "offsets in the block at ics23Facts(): what a verified proof proved (§14.4).",
  },
  { file: "host.ts", match: /^UNCHANGED$/, flat: true, doc: "kvGetPlan's answer when the stored plan is the value the core already holds (§2.3)." },
  { file: "memory.ts", match: /^H_/, flat: true, doc: "offsets (bytes) in the result header at headerPtr() (§4.1)." },
];

/** The groups in output order, each with its constants' names in source order. */
function collect() {
  const groups = RULES.map((rule) => ({ ...rule, names: /** @type {string[]} */ ([]) }));
  const files = [...new Set(RULES.map((r) => r.file))];
  for (const file of files) {
    const source = read(`assembly/${file}`);
    for (const m of source.matchAll(/^export const ([A-Z][A-Z0-9_]*)\b/gm)) {
      const group = groups.find((g) => g.file === file && g.match.test(m[1]));
      if (group) group.names.push(m[1]);
    }
  }
  for (const g of groups) {
    if (g.names.length === 0) throw new Error(`scripts/constants.mjs: no constant of assembly/${g.file} matches ${g.match}`);
  }
  return groups;
}

const pascal = (name, strip) =>
  name
    .slice(strip.length)
    .split("_")
    .map((w) => w.charAt(0) + w.slice(1).toLowerCase())
    .join("");

/** The TypeScript expression that names a constant in bindings/core/constants.generated.ts. */
const tsName = (g, name) => (g.flat ? name : `${g.object}.${pascal(name, g.strip)}`);

function writeTable(groups) {
  const imports = new Map();
  for (const g of groups) imports.set(g.file, [...(imports.get(g.file) ?? []), ...g.names]);
  const all = groups.flatMap((g) => g.names);
  let out =
    "// Generated by scripts/constants.mjs from the `export const`s of assembly/; do not edit.\n" +
    "// Every constant that bindings/core/constants.generated.ts holds, in its order, as a table the core\n" +
    "// exports (constantTable): test/core/constants.test.ts compares the two value by value.\n";
  for (const [file, names] of imports) out += `import { ${names.join(", ")} } from "./${file.replace(/\.ts$/, "")}";\n`;
  out += `\nconst TABLE: usize = memory.data<i32>([\n  ${all.length},\n`;
  for (const name of all) out += `  ${name},\n`;
  out += "]);\n\n";
  out += "/** [count, value…] as i32, in the order of CONSTANT_TABLE in bindings/core/constants.generated.ts. */\n";
  out += "export function constantTable(): usize {\n  return TABLE;\n}\n";
  writeGenerated(new URL("assembly/constants.generated.ts", root), out);
  console.log(`assembly/constants.generated.ts: ${all.length} constants`);
}

/** The values of constantTable() in build/release.wasm. */
async function tableOf(wasmBytes) {
  const refuse = () => {
    throw new Error("scripts/constants.mjs: the core called its host while reading constantTable");
  };
  const { instance } = await WebAssembly.instantiate(wasmBytes, {
    host: { kvGet: refuse, kvGetPlan: refuse, kvSet: refuse, kvDelete: refuse, kvScan: refuse, kvScanDone: refuse },
    env: { abort: refuse },
  });
  const { constantTable, memory } = instance.exports;
  if (typeof constantTable !== "function") throw new Error("build/release.wasm does not export constantTable");
  if (!(memory instanceof WebAssembly.Memory)) throw new Error("build/release.wasm does not export its memory");
  const ptr = constantTable();
  const count = new Int32Array(memory.buffer, ptr, 1)[0];
  return Array.from(new Int32Array(memory.buffer, ptr + 4, count));
}

async function writeTs(groups) {
  const values = await tableOf(readFileSync(new URL("build/release.wasm", root)));
  const all = groups.flatMap((g) => g.names);
  if (values.length !== all.length) {
    throw new Error(`build/release.wasm has ${values.length} constants, assembly/ declares ${all.length}: run \`npm run build:wasm\``);
  }
  const value = new Map(all.map((name, i) => [name, values[i]]));
  let out =
    "// Generated by scripts/constants.mjs from the `export const`s of assembly/ (their values as compiled into\n" +
    "// build/release.wasm); do not edit. `npm run build:wasm` rewrites it; test/core/constants.test.ts checks it\n" +
    "// against build/release.wasm.\n";
  for (const g of groups) {
    out += `\n/** assembly/${g.file}: ${g.doc} */\n`;
    if (g.flat) {
      for (const name of g.names) out += `export const ${name} = ${value.get(name)};\n`;
    } else {
      out += `export const ${g.object} = {\n`;
      for (const name of g.names) out += `  ${pascal(name, g.strip)}: ${value.get(name)},\n`;
      out += "} as const;\n";
    }
  }
  out += "\n/** Every constant above by its name in assembly/, in the order of the core's constantTable(). */\n";
  out += "export const CONSTANT_TABLE: readonly (readonly [string, number])[] = [\n";
  for (const g of groups) for (const name of g.names) out += `  ["${name}", ${tsName(g, name)}],\n`;
  out += "];\n";
  writeGenerated(new URL("bindings/core/constants.generated.ts", root), out);
  console.log(`bindings/core/constants.generated.ts: ${all.length} constants from build/release.wasm`);
}

const step = process.argv[2];
if (step === "table") writeTable(collect());
else if (step === "ts") await writeTs(collect());
else if (step !== undefined) {
  console.error("usage: node scripts/constants.mjs table|ts");
  process.exit(2);
}
