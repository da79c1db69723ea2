/** `--output json|text`: compact Go-style JSON (keys in the order given) or the YAML text form. */
import { goJsonString } from "../../go/json.js";
import { CliError } from "./errors.js";
import { toYaml, type JsonValue } from "./yaml.js";

export type OutputFormat = "text" | "json";

export function parseOutput(value: string | undefined): OutputFormat {
  const v = value ?? "text";
  if (v !== "text" && v !== "json") throw new CliError(`invalid --output ${JSON.stringify(v)}: must be text or json`);
  return v;
}

/** Compact JSON with Go's string escaping, keys in insertion order. */
export function toJson(value: JsonValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return goJsonString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return "[" + value.map(toJson).join(",") + "]";
  return (
    "{" +
    Object.keys(value)
      .map((k) => goJsonString(k) + ":" + toJson(value[k]))
      .join(",") +
    "}"
  );
}

/** JSON indented by two spaces (the block record of `query upgrade applied`). */
export function toIndentedJson(value: JsonValue, indent = ""): string {
  if (value === null || typeof value !== "object") return toJson(value);
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return "[\n" + value.map((v) => inner + toIndentedJson(v, inner)).join(",\n") + "\n" + indent + "]";
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return "{}";
  return "{\n" + keys.map((k) => inner + goJsonString(k) + ": " + toIndentedJson(value[k], inner)).join(",\n") + "\n" + indent + "}";
}

/** The text to print for a result in the chosen format, ending with a newline. */
export function render(value: JsonValue, format: OutputFormat): string {
  return format === "json" ? toJson(value) + "\n" : toYaml(value);
}

export function print(value: JsonValue, format: OutputFormat): void {
  process.stdout.write(render(value, format));
}
