/**
 * `Plan.String()`: the gogoproto CompactTextString form (docs/spec/keeper.md §3.3), e.g.
 * `name:"test" time:<seconds:-62135596800 > height:100 `. Used in logs and error texts, so it must match
 * the Go node byte for byte.
 */
import type { Plan } from "../core/types.js";

// Plans always carry the zero time (0001-01-01T00:00:00Z); the text form prints the non-nullable
// stdtime field even though it is zero, and omits its zero `nanos`.
const ZERO_TIME_TEXT = "time:<seconds:-62135596800 > ";

export function planToText(plan: Plan): string {
  let out = "";
  if (plan.name !== "") out += `name:${quoteProtoText(plan.name)} `;
  out += ZERO_TIME_TEXT;
  if (plan.height !== 0n) out += `height:${plan.height} `;
  const info = plan.info ?? "";
  if (info !== "") out += `info:${quoteProtoText(info)} `;
  return out;
}

const encoder = new TextEncoder();

/**
 * golang/protobuf text `writeString`: works on UTF-8 bytes, not characters, so every byte outside
 * printable ASCII (including each byte of a multi-byte character) becomes a 3-digit octal escape.
 * Apostrophes are not escaped (a documented divergence from C++ that Go keeps).
 */
export function quoteProtoText(s: string): string {
  const bytes = encoder.encode(s); // lone surrogates become U+FFFD, as Go strings cannot hold them
  let out = '"';
  for (const b of bytes) {
    switch (b) {
      case 0x0a:
        out += "\\n";
        break;
      case 0x0d:
        out += "\\r";
        break;
      case 0x09:
        out += "\\t";
        break;
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += "\\\\";
        break;
      default:
        out += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : "\\" + b.toString(8).padStart(3, "0");
    }
  }
  return out + '"';
}
