/**
 * Standby for a sidecar's prestart (docs/spec/sidecar.md §5.5). Started with `XUPGRADE_STANDBY_FD=<n>` (the
 * visor's pipe), `devnet start` loads everything it can without the node's data — its code, the app, the
 * keeper's core, the configuration and genesis — then writes `ready` on fd n and waits: on `go` it opens the
 * home and runs; if the fd closes first, it ends having touched nothing under `data/`. The fd is closed before
 * the node starts CometBFT, which must not inherit it.
 */
import { Socket } from "node:net";
import { DevnetError } from "../shared/errors.js";

const STANDBY_ENV = "XUPGRADE_STANDBY_FD";

/** The sidecar dismissed the standby: the node ends without having opened its home's data. */
export class StandbyDismissedError extends Error {
  override name = "StandbyDismissedError";
  constructor() {
    super("standby ended: the sidecar that started this node in standby did not hand it over (nothing under data/ was touched)");
  }
}

/**
 * The gate: undefined when not started in standby; else a function that says `ready`, waits for `go`
 * (resolves) or for the fd to close (rejects with StandbyDismissedError), and closes the fd.
 */
export function standbyGate(env: NodeJS.ProcessEnv = process.env): (() => Promise<void>) | undefined {
  const text = env[STANDBY_ENV];
  if (text === undefined || text === "") return undefined;
  delete env[STANDBY_ENV]; // not for CometBFT or anything else this node starts
  const fd = Number(text);
  if (!Number.isInteger(fd) || fd < 3) throw new DevnetError("option", `${STANDBY_ENV} must be a file descriptor number above 2, got ${JSON.stringify(text)}`);
  return () =>
    new Promise<void>((resolve, reject) => {
      const channel = new Socket({ fd, readable: true, writable: true });
      let got = "";
      let settled = false;
      const settle = (go: boolean) => {
        if (settled) return;
        settled = true;
        channel.destroy();
        if (go) resolve();
        else reject(new StandbyDismissedError());
      };
      channel.on("data", (d: Buffer) => {
        got += d.toString("utf8");
        if (got.split("\n").includes("go")) settle(true);
      });
      channel.on("end", () => settle(got.split("\n").includes("go")));
      channel.on("close", () => settle(got.split("\n").includes("go")));
      channel.on("error", () => settle(false));
      channel.write("ready\n");
    });
}
