/**
 * The calendar feeds (RFC 5545; docs/spec/watch.md §7): one event per upgrade, from the ETA band's early edge
 * (DTSTART = p10) to its late edge (DTEND = p90), the median in the summary, with a UID made of the chain id, the
 * plan's name and height — stable, so a calendar that subscribed updates the event instead of adding one. When the
 * band moves by more than a minute (or 1 % of the time left) the event is published again with SEQUENCE one
 * higher and a new DTSTAMP; a cancelled plan stays in the feed with STATUS:CANCELLED (SEQUENCE bumped too), an
 * applied one with its actual halt time. What was published is kept (CalendarMemory) so SEQUENCE survives
 * restarts and an event is not republished for nothing. Pure.
 */

export interface CalendarEvent {
  uid: string;
  chain: string;
  summary: string;
  description: string;
  /** ms */
  start: number;
  end: number;
  status: "CONFIRMED" | "TENTATIVE" | "CANCELLED";
  url?: string;
}

/** What was published per UID. */
export type CalendarMemory = Record<string, CalendarEvent & { sequence: number; stamp: number }>;

const MINUTE = 60_000;

/** A UID for an upgrade of a chain: the same every time, unique across chains. */
export function eventUid(chainId: string, plan: { name: string; height: bigint | string }): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return `upgrade-${safe(plan.name)}-${plan.height}.${safe(chainId)}@xupgrade-watch`;
}

/** Whether the published times should move to the new ones: more than a minute, or 1 % of the time left. */
function moved(old: { start: number; end: number }, e: { start: number; end: number }, now: number): boolean {
  const tolerance = Math.max(MINUTE, 0.01 * Math.max(0, e.start - now));
  return Math.abs(old.start - e.start) > tolerance || Math.abs(old.end - e.end) > tolerance;
}

/** The memory after publishing `events` at `now`: new events at SEQUENCE 0, moved or re-statused ones one higher. */
export function publish(memory: CalendarMemory, events: readonly CalendarEvent[], now: number): CalendarMemory {
  const out: CalendarMemory = { ...memory };
  for (const e of events) {
    const old = memory[e.uid];
    if (!old) out[e.uid] = { ...e, start: roundMinute(e.start), end: Math.max(roundMinute(e.end), roundMinute(e.start) + MINUTE), sequence: 0, stamp: now };
    else if (old.status !== e.status || moved(old, e, now) || old.summary !== e.summary) {
      const start = moved(old, e, now) ? roundMinute(e.start) : old.start;
      const end = moved(old, e, now) ? Math.max(roundMinute(e.end), start + MINUTE) : old.end;
      out[e.uid] = { ...e, start, end, sequence: old.sequence + 1, stamp: now };
    }
  }
  return out;
}

const roundMinute = (ms: number) => Math.round(ms / MINUTE) * MINUTE;

/** `20260504T100000Z` */
export function icsTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
}

/** A TEXT value, escaped (RFC 5545 §3.3.11). */
export function icsText(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
}

/** A content line folded at 75 octets (§3.1), never inside a UTF-8 sequence. */
export function fold(line: string): string {
  const enc = new TextEncoder();
  const parts: string[] = [];
  let cur = "";
  let bytes = 0;
  for (const ch of line) {
    const n = enc.encode(ch).length;
    const limit = parts.length === 0 ? 75 : 74; // continuation lines start with a space
    if (bytes + n > limit) {
      parts.push(cur);
      cur = "";
      bytes = 0;
    }
    cur += ch;
    bytes += n;
  }
  parts.push(cur);
  return parts.join("\r\n ");
}

/** The VCALENDAR text of the events (CRLF line ends). */
export function renderCalendar(name: string, events: readonly (CalendarEvent & { sequence: number; stamp: number })[]): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//xupgrade//watch//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH", `X-WR-CALNAME:${icsText(name)}`];
  for (const e of [...events].sort((a, b) => a.start - b.start || a.uid.localeCompare(b.uid))) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:${e.uid}`,
      `DTSTAMP:${icsTime(e.stamp)}`,
      `LAST-MODIFIED:${icsTime(e.stamp)}`,
      `SEQUENCE:${e.sequence}`,
      `DTSTART:${icsTime(e.start)}`,
      `DTEND:${icsTime(e.end)}`,
      `SUMMARY:${icsText(e.summary)}`,
      `DESCRIPTION:${icsText(e.description)}`,
      `STATUS:${e.status}`,
      "TRANSP:TRANSPARENT",
      `CATEGORIES:${icsText(e.chain)}`,
      ...(e.url ? [`URL:${e.url}`] : []),
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return lines.map(fold).join("\r\n") + "\r\n";
}
