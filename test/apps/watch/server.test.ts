/** The watch's HTTP server (bindings/apps/watch/server.ts) under hostile paths and methods: nothing outside the pages, no 500. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startWatchServer } from "../../../bindings/apps/watch/server.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";

afterAll(removeTempDirs);

describe("the watch's server", () => {
  it("serves the pages, the rows, the feeds and the metrics; hostile paths get 404 without a path of this machine", async () => {
    const ui = tempDir("xupgrade-watch-ui-");
    mkdirSync(join(ui, "assets"));
    writeFileSync(join(ui, "fleet.html"), "<html>fleet</html>");
    writeFileSync(join(ui, "assets", "a.js"), "1");
    writeFileSync(join(ui, "..secret"), "no");
    const errors: unknown[] = [];
    const server = await startWatchServer(
      "127.0.0.1:0",
      {
        fleet: () => '{"chains":[]}',
        calendar: (c) => (c === undefined ? "BEGIN:VCALENDAR" : c === "hub" ? "BEGIN:VCALENDAR hub" : undefined),
        metrics: async () => ({ type: "text/plain", text: "x 1\n" }),
      },
      { uiDir: ui, onError: (e) => errors.push(e) },
    );
    try {
      const get = async (path: string, init?: RequestInit) => {
        const r = await fetch(server.url + path, { redirect: "manual", ...init });
        return { status: r.status, body: await r.text(), type: r.headers.get("content-type"), cors: r.headers.get("access-control-allow-origin") };
      };
      expect(await get("/")).toMatchObject({ status: 302 });
      expect(await get("/fleet.html")).toMatchObject({ status: 200, body: "<html>fleet</html>", type: "text/html; charset=utf-8" });
      expect(await get("/assets/a.js")).toMatchObject({ status: 200, body: "1" });
      expect(await get("/fleet.json")).toMatchObject({ status: 200, cors: "*" });
      expect(await get("/chains/hub.ics")).toMatchObject({ status: 200, body: "BEGIN:VCALENDAR hub", type: "text/calendar; charset=utf-8" });
      expect(await get("/chains/h%75b.ics")).toMatchObject({ status: 200 });
      expect(await get("/chains/nope.ics")).toMatchObject({ status: 404 });
      expect(await get("/metrics")).toMatchObject({ status: 200, body: "x 1\n" });
      for (const path of [
        "/..%2f..%2fetc%2fpasswd",
        "/assets/..%2f..secret",
        "/assets/%2e%2e%2fsecret",
        "/..secret",
        "/assets/%00",
        "/chains/%E0%A4%A.ics",
        "/assets/" + "a".repeat(300),
        "/state.json",
        "/index.html",
      ]) {
        const r = await get(path);
        expect([path, r.status]).toEqual([path, 404]);
        expect(r.body).not.toContain(ui);
      }
      expect((await get("/fleet.json", { method: "POST" })).status).toBe(405);
      expect((await get("/fleet.json", { method: "POST", body: "{}" })).status).toBe(413); // no bodies accepted at all
      expect((await get("/fleet.json", { method: "DELETE" })).status).toBe(405);
      expect(errors).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
