/**
 * The twelve Go time layouts `COSMOVISOR_TIMEFORMAT_LOGS` may name (docs/spec/sidecar.md §3), and a formatter for
 * them in local time: only the layout elements these twelve use are implemented.
 */

export const TIME_LAYOUTS: Record<string, string> = {
  layout: "01/02 03:04:05PM '06 -0700",
  ansic: "Mon Jan _2 15:04:05 2006",
  unixdate: "Mon Jan _2 15:04:05 MST 2006",
  rubydate: "Mon Jan 02 15:04:05 -0700 2006",
  rfc822: "02 Jan 06 15:04 MST",
  rfc822z: "02 Jan 06 15:04 -0700",
  rfc850: "Monday, 02-Jan-06 15:04:05 MST",
  rfc1123: "Mon, 02 Jan 2006 15:04:05 MST",
  rfc1123z: "Mon, 02 Jan 2006 15:04:05 -0700",
  rfc3339: "2006-01-02T15:04:05Z07:00",
  rfc3339nano: "2006-01-02T15:04:05.999999999Z07:00",
  kitchen: "3:04PM",
};

export const TIME_FORMAT_NAMES = Object.keys(TIME_LAYOUTS);

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** Longest first, so `Monday` wins over `Mon` and `2006` over `2`. */
const TOKENS = ["Monday", ".999999999", "Z07:00", "-0700", "2006", "Mon", "Jan", "MST", "_2", "01", "02", "03", "04", "05", "06", "15", "PM", "3"];

const pad2 = (n: number) => String(n).padStart(2, "0");

function offset(d: Date, colon: boolean, zulu: boolean): string {
  const off = -d.getTimezoneOffset();
  if (off === 0 && zulu) return "Z";
  const sign = off < 0 ? "-" : "+";
  const a = Math.abs(off);
  return `${sign}${pad2(Math.floor(a / 60))}${colon ? ":" : ""}${pad2(a % 60)}`;
}

function zoneAbbreviation(d: Date): string {
  try {
    const part = new Intl.DateTimeFormat("en-US", { timeZoneName: "short" }).formatToParts(d).find((p) => p.type === "timeZoneName");
    if (part && /^[A-Z]{2,5}$/.test(part.value)) return part.value;
  } catch {
    /* no Intl zone data */
  }
  return offset(d, false, false); // Go prints the numeric offset when a zone has no abbreviation
}

/** Formats `d` (local time) with a Go layout. `nanos` adds sub-millisecond precision for `.999999999`. */
export function formatGoTime(d: Date, layout: string, nanos?: number): string {
  let out = "";
  for (let i = 0; i < layout.length;) {
    const token = TOKENS.find((t) => layout.startsWith(t, i));
    if (!token) {
      out += layout[i++];
      continue;
    }
    i += token.length;
    const h = d.getHours();
    switch (token) {
      case "Monday":
        out += DAYS[d.getDay()];
        break;
      case "Mon":
        out += DAYS[d.getDay()].slice(0, 3);
        break;
      case "Jan":
        out += MONTHS[d.getMonth()];
        break;
      case "2006":
        out += String(d.getFullYear()).padStart(4, "0");
        break;
      case "06":
        out += pad2(d.getFullYear() % 100);
        break;
      case "01":
        out += pad2(d.getMonth() + 1);
        break;
      case "02":
        out += pad2(d.getDate());
        break;
      case "_2":
        out += String(d.getDate()).padStart(2, " ");
        break;
      case "15":
        out += pad2(h);
        break;
      case "03":
        out += pad2(h % 12 === 0 ? 12 : h % 12);
        break;
      case "3":
        out += String(h % 12 === 0 ? 12 : h % 12);
        break;
      case "04":
        out += pad2(d.getMinutes());
        break;
      case "05":
        out += pad2(d.getSeconds());
        break;
      case "PM":
        out += h >= 12 ? "PM" : "AM";
        break;
      case "MST":
        out += zoneAbbreviation(d);
        break;
      case "-0700":
        out += offset(d, false, false);
        break;
      case "Z07:00":
        out += offset(d, true, true);
        break;
      case ".999999999": {
        const ns = nanos ?? d.getMilliseconds() * 1_000_000;
        const frac = String(ns).padStart(9, "0").replace(/0+$/, "");
        if (frac !== "") out += "." + frac;
        break;
      }
    }
  }
  return out;
}
