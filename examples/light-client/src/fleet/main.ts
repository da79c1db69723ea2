/**
 * The fleet view (fleet.html; docs/spec/watch.md §8): one row per chain — the plan, the ETA band and countdown,
 * readiness, the verified badge and height (amber while the chain's trust root is unconfirmed, red with the failed
 * check when a node lies), the alerts sent — each linking to the chain's own page.
 *
 * Served by `xupgrade watch`, it draws the watch's rows (`fleet.json`, every 2 s). As a static page anywhere,
 * `fleet.html?config=<url of a watch config in JSON>` follows those chains itself, verified in the browser;
 * `fleet.html?rows=<url>` draws the rows of a watch elsewhere (its /fleet.json).
 */
import { renderFleet } from "./rows.js";
import { BrowserFleet } from "./follow.js";
import type { FleetJson } from "../../../../bindings/apps/watch/fleet.js";

const params = new URLSearchParams(location.search);
const POLL_MS = Math.min(60_000, Math.max(500, Number(params.get("poll")) || 2000));
const tbody = document.querySelector("#fleet tbody")!;
const banner = document.getElementById("banner")!;
const source = document.getElementById("source")!;
const footer = document.getElementById("footer")!;

let last: FleetJson | undefined;
let base = location.href;

function draw(): void {
  if (!last) return;
  tbody.innerHTML = renderFleet(last, base);
  document.body.dataset.state = "ready";
  const failed = last.chains.filter((c) => c.status === "failed");
  banner.className = failed.length ? "error" : "";
  banner.textContent = failed.length
    ? `${failed.map((c) => c.name).join(", ")}: a check failed — nothing from ${failed.length === 1 ? "that node" : "those nodes"} is shown as verified`
    : "";
  footer.textContent = `${last.chains.length} chains · rows of ${new Date(last.generated_at).toLocaleTimeString()}${last.source === "page" ? " · verified in this browser; alerts are sent by xupgrade watch only" : ""}`;
}

async function fromRows(url: string): Promise<void> {
  base = new URL(url, location.href).href;
  source.textContent = `rows from ${url}`;
  for (;;) {
    try {
      const res = await fetch(url, { cache: "no-store" });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      last = (await res.json()) as FleetJson;
      draw();
    } catch (e) {
      banner.className = "unreachable";
      banner.textContent = `the watch at ${url} did not answer: ${(e as Error).message}`;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function fromConfig(url: string): Promise<void> {
  source.textContent = `following the chains of ${url} in this browser`;
  document.getElementById("calendar")!.remove();
  let fleet: BrowserFleet;
  try {
    fleet = await BrowserFleet.load(url);
  } catch (e) {
    banner.className = "error";
    banner.textContent = `cannot use the config ${url}: ${(e as Error).message}`;
    return;
  }
  for (;;) {
    await fleet.poll();
    last = fleet.rows();
    draw();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

setInterval(draw, 1000); // the countdowns
const config = params.get("config");
if (config) void fromConfig(config);
else void fromRows(params.get("rows") ?? "fleet.json");
