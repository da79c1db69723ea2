/** The calendar feeds (bindings/apps/watch/ics.ts, calendar.ts), read back with ical.js. */
import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { emptyMemory } from "../../../bindings/apps/watch/alerts.js";
import { chainEvents } from "../../../bindings/apps/watch/calendar.js";
import { eventUid, fold, publish, renderCalendar, type CalendarMemory } from "../../../bindings/apps/watch/ics.js";
import type { ChainSnapshot } from "../../../bindings/apps/watch/snapshot.js";

const NOW = Date.UTC(2026, 4, 4, 10, 0, 0);
const snap = (o: Partial<ChainSnapshot> & { p10: number; p90: number }): ChainSnapshot => ({
  name: "hub",
  chainId: "cosmoshub-4",
  at: NOW,
  status: "verified",
  root: { source: "given", confirmed: true, origin: { how: "given", node: "http://n", height: 1n, hash: "AB", at: "" } },
  witnesses: { without: false, confirmed: ["http://w"], faulty: [], unavailable: [] },
  header: { height: 1000n, hash: "CD".repeat(32), time: "2026-05-04T09:59:58Z", ms: NOW - 2000, ageMs: 2000, appVersion: 0n },
  plan: { name: "v19, with; commas", height: 2000n, info: "" },
  proposals: [],
  history: { samples: 1000, spanMs: 3_600_000, covered: false },
  eta: { blocksLeft: 1000, p10: o.p10, p50: (o.p10 + o.p90) / 2, p90: o.p90, method: "analogs", analogs: 500, spanMs: 3_600_000 },
  ...o,
});

function events(text: string) {
  const comp = new ICAL.Component(ICAL.parse(text));
  return comp.getAllSubcomponents("vevent").map((v) => {
    const e = new ICAL.Event(v);
    return {
      uid: e.uid,
      summary: e.summary,
      start: e.startDate.toJSDate().getTime(),
      end: e.endDate.toJSDate().getTime(),
      sequence: e.sequence,
      status: v.getFirstPropertyValue("status"),
      stamp: (v.getFirstPropertyValue("dtstamp") as ICAL.Time).toJSDate().getTime(),
    };
  });
}

describe("calendar feeds", () => {
  it("one event per upgrade from p10 to p90; the UID is stable and SEQUENCE bumps only when the band moves", () => {
    let mem: CalendarMemory = {};
    const s1 = snap({ p10: NOW + 3_600_000, p90: NOW + 7_200_000 });
    mem = publish(mem, chainEvents(s1, emptyMemory(), mem), NOW);
    const [e1] = events(renderCalendar("hub", Object.values(mem)));
    expect(e1).toMatchObject({
      uid: eventUid("cosmoshub-4", { name: "v19, with; commas", height: 2000n }),
      summary: "hub: upgrade v19, with; commas at height 2000",
      start: NOW + 3_600_000,
      end: NOW + 7_200_000,
      sequence: 0,
      status: "CONFIRMED",
    });

    // 20 s later the band moved by 10 s: not worth an update.
    const s2 = snap({ at: NOW + 20_000, p10: NOW + 3_610_000, p90: NOW + 7_210_000 });
    mem = publish(mem, chainEvents(s2, emptyMemory(), mem), NOW + 20_000);
    expect(events(renderCalendar("hub", Object.values(mem)))[0]).toMatchObject({ sequence: 0, start: NOW + 3_600_000 });

    // The chain slowed: the band moved by 20 minutes — published again, SEQUENCE 1, a new DTSTAMP, the same UID.
    const s3 = snap({ at: NOW + 60_000, p10: NOW + 4_800_000, p90: NOW + 9_000_000 });
    mem = publish(mem, chainEvents(s3, emptyMemory(), mem), NOW + 60_000);
    const [e3] = events(renderCalendar("hub", Object.values(mem)));
    expect(e3).toMatchObject({ uid: e1.uid, sequence: 1, start: NOW + 4_800_000, end: NOW + 9_000_000, stamp: NOW + 60_000 });

    // Cancelled: the same event, STATUS:CANCELLED, SEQUENCE 2.
    const before = { ...emptyMemory(), plan: { name: "v19, with; commas", height: "2000", info: "", firstSeen: NOW } };
    const s4 = snap({ at: NOW + 120_000, p10: 0, p90: 0, plan: null, eta: undefined });
    mem = publish(mem, chainEvents(s4, before, mem), NOW + 120_000);
    expect(events(renderCalendar("hub", Object.values(mem)))[0]).toMatchObject({ uid: e1.uid, sequence: 2, status: "CANCELLED" });
  });

  it("an unconfirmed root makes the event TENTATIVE; the fleet feed holds every chain's events", () => {
    const a = publish({}, chainEvents(snap({ p10: NOW + 1000, p90: NOW + 120_000 }), emptyMemory(), {}), NOW);
    const b = publish(
      {},
      chainEvents(
        snap({
          name: "simd",
          chainId: "simd-1",
          p10: NOW + 9000,
          p90: NOW + 90_000,
          root: { source: "first-use", confirmed: false, origin: { how: "first-use", node: "n", height: 1n, hash: "AB", at: "" } },
        }),
        emptyMemory(),
        {},
      ),
      NOW,
    );
    const all = events(renderCalendar("fleet", [...Object.values(a), ...Object.values(b)]));
    expect(all.map((e) => e.status).sort()).toEqual(["CONFIRMED", "TENTATIVE"]);
    expect(new Set(all.map((e) => e.uid)).size).toBe(2);
  });

  it("folds long lines at 75 octets, never inside a character, and ical.js reads them back", () => {
    const long = `Ünïcødé ${"ж".repeat(60)} ${"x".repeat(100)}`;
    const folded = fold(`SUMMARY:${long}`);
    for (const line of folded.split("\r\n")) expect(new TextEncoder().encode(line).length).toBeLessThanOrEqual(75);
    const text = renderCalendar("x", [
      { uid: "u@x", chain: "c", summary: long, description: "a\nb", start: NOW, end: NOW + 60_000, status: "CONFIRMED", sequence: 0, stamp: NOW },
    ]);
    expect(events(text)[0].summary).toBe(long);
    expect(text.endsWith("END:VCALENDAR\r\n")).toBe(true);
  });
});
