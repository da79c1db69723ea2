/**
 * A node that is down or answers garbage: every command that talks to it fails with one clear line and
 * exit 1. (The servers here only inject faults; the real node is exercised in devnet.test.ts.)
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_KEY, errorLine, httpServer, removeTempDirs, runAll, runCli, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const queries = [
  ["query", "upgrade", "plan"],
  ["query", "upgrade", "applied", "v2"],
  ["query", "upgrade", "module_versions"],
  ["query", "upgrade", "authority"],
  ["query", "gov", "proposal", "1"],
];

describe("a node that is down", () => {
  it("queries and transactions say so in one line", async () => {
    const port = await closedPort();
    const node = `tcp://127.0.0.1:${port}`;
    const home = tempDir();
    expect((await runCli(["keys", "import-hex", "k", TEST_KEY.privkey, "--keyring-backend", "test", "--home", home])).code).toBe(0);
    const commands = [
      ...queries,
      [
        "tx",
        "upgrade",
        "software-upgrade",
        "v2",
        "--title",
        "t",
        "--summary",
        "s",
        "--upgrade-height",
        "100",
        "--no-validate",
        "--from",
        "k",
        "--keyring-backend",
        "test",
        "--home",
        home,
        "-y",
      ],
      ["tx", "upgrade", "cancel-software-upgrade", "--title", "t", "--summary", "s", "--from", "k", "--keyring-backend", "test", "--home", home, "-y"],
      ["tx", "gov", "vote", "1", "yes", "--from", "k", "--keyring-backend", "test", "--home", home, "-y"],
    ];
    const failures: string[] = [];
    await runAll(commands, async (cmd) => {
      const r = await runCli([...cmd, "--node", node]);
      try {
        expect(errorLine(r)).toBe(`cannot reach node http://127.0.0.1:${port}: connection refused (is the node running?)`);
      } catch (e) {
        failures.push(`${cmd.join(" ")}: ${(e as Error).message}`);
      }
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it("an invalid --node is refused before any request", async () => {
    expect(errorLine(await runCli(["query", "upgrade", "plan", "--node", "ftp://x"]))).toBe('invalid --node "ftp://x": scheme must be tcp, http or https');
    expect(errorLine(await runCli(["query", "upgrade", "plan", "--node", "not a url"]))).toBe('invalid --node "not a url": not a URL');
  }, 60_000);
});

describe("a node that answers garbage", () => {
  const answers: [string, (body: { id: number; method: string }) => { status?: number; body: string; type?: string }, RegExp][] = [
    ["plain text", () => ({ body: "hello" }), /^invalid response from node http:\/\/127\.0\.0\.1:\d+ to abci_query: not JSON \("hello"\)$/],
    [
      "an HTML error page",
      () => ({ status: 502, body: "<html><body>Bad Gateway</body></html>", type: "text/html" }),
      /: HTTP 502, not JSON \("<html><body>Bad Gateway<\/body><\/html>"\)$/,
    ],
    ["JSON that is not JSON-RPC", () => ({ body: '{"ok":true}' }), /to abci_query: not a JSON-RPC 2\.0 answer/],
    [
      "a JSON-RPC error",
      (b) => ({ body: JSON.stringify({ jsonrpc: "2.0", id: b.id, error: { code: -32603, message: "Internal error", data: "boom" } }) }),
      /^node error on abci_query: boom \(Internal error, code -32603\)$/,
    ],
    ["no result", (b) => ({ body: JSON.stringify({ jsonrpc: "2.0", id: b.id }) }), /to abci_query: no result object/],
    ["a response without fields", (b) => ({ body: JSON.stringify({ jsonrpc: "2.0", id: b.id, result: {} }) }), /to abci_query: no response object$/],
    [
      "a value that is not base64",
      (b) => ({ body: JSON.stringify({ jsonrpc: "2.0", id: b.id, result: { response: { code: 0, value: "%%%", height: "5" } } }) }),
      /response\.value is not base64$/,
    ],
    [
      "undecodable protobuf",
      (b) => ({ body: JSON.stringify({ jsonrpc: "2.0", id: b.id, result: { response: { code: 0, value: "/////w==", height: "5" } } }) }),
      /cannot decode the \/cosmos\.upgrade\.v1beta1\.Query\/CurrentPlan response/,
    ],
    ["an empty body", () => ({ body: "" }), /not JSON \(empty body\)$/],
  ];

  it("each query fails with one clear line", async () => {
    const failures: string[] = [];
    await runAll(answers, async ([name, answer, expected]) => {
      const srv = await httpServer((req, res) => {
        let data = "";
        req.on("data", (c) => (data += c));
        req.on("end", () => {
          let body: { id: number; method: string } = { id: 0, method: "" };
          try {
            body = JSON.parse(data);
          } catch {
            /* not JSON-RPC */
          }
          const a = answer(body);
          res.writeHead(a.status ?? 200, { "content-type": a.type ?? "application/json" });
          res.end(a.body);
        });
      });
      try {
        const r = await runCli(["query", "upgrade", "plan", "--node", srv.url]);
        expect(errorLine(r)).toMatch(expected);
      } catch (e) {
        failures.push(`${name}: ${(e as Error).message}`);
      } finally {
        await srv.close();
      }
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it("a node that closes the connection", async () => {
    const srv = await httpServer((req) => req.socket.destroy());
    try {
      expect(errorLine(await runCli(["query", "upgrade", "plan", "--node", srv.url]))).toMatch(/^cannot reach node http:\/\/127\.0\.0\.1:\d+: /);
    } finally {
      await srv.close();
    }
  }, 60_000);
});
