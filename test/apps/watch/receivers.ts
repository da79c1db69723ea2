/**
 * Local webhook receivers for the watch's tests: each records what it was POSTed (with the Idempotency-Key), can
 * refuse the first N requests (500) or hang, and checks each body against the shape its service documents.
 */
import type { IncomingMessage } from "node:http";
import { httpServer, type TestServer } from "../../support/http.js";

export interface Received {
  id: string;
  body: Record<string, unknown>;
  at: number;
}

export interface Receiver extends TestServer {
  got: Received[];
  /** Requests answered (any status). */
  requests: number;
  /** Refuse this many more requests with 500. */
  failNext: number;
  /** Hold every request without answering while true. */
  hang: boolean;
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = "";
    req
      .setEncoding("utf8")
      .on("data", (d: string) => (s += d))
      .on("end", () => resolve(s));
  });

export async function receiver(check: (body: Record<string, unknown>) => void = () => {}): Promise<Receiver> {
  const r = { got: [] as Received[], requests: 0, failNext: 0, hang: false };
  const server = await httpServer(async (req, res) => {
    const body = JSON.parse(await read(req)) as Record<string, unknown>;
    if (r.hang) return; // never answered: the client's timeout decides
    r.requests++;
    if (r.failNext > 0) {
      r.failNext--;
      res.writeHead(500).end("try again");
      return;
    }
    check(body);
    r.got.push({ id: String(req.headers["idempotency-key"]), body, at: Date.now() });
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  return Object.assign(r, server);
}

/** Slack's incoming-webhook shape: text, and blocks of known types with their text objects' limits. */
export function slackShape(b: Record<string, unknown>): void {
  if (typeof b.text !== "string" || b.text.length === 0 || b.text.length > 3000) throw new Error("slack: text");
  const blocks = b.blocks as { type: string; text?: { type: string; text: string }; elements?: { type: string; text: string }[] }[];
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > 50) throw new Error("slack: blocks");
  for (const k of blocks) {
    if (!["header", "section", "context"].includes(k.type)) throw new Error(`slack: block type ${k.type}`);
    if (k.type === "header" && (k.text?.type !== "plain_text" || k.text.text.length > 150)) throw new Error("slack: header");
    if (k.type === "section" && (k.text?.type !== "mrkdwn" || k.text.text.length > 3000)) throw new Error("slack: section");
    if (k.type === "context" && !k.elements?.every((e) => e.type === "mrkdwn" && e.text.length <= 3000)) throw new Error("slack: context");
  }
}

/** Discord's Execute Webhook shape and limits. */
export function discordShape(b: Record<string, unknown>): void {
  if (typeof b.content !== "string" || b.content.length > 2000) throw new Error("discord: content");
  const embeds = b.embeds as { title: string; color: number; fields: { name: string; value: string }[]; footer: { text: string }; timestamp: string }[];
  if (!Array.isArray(embeds) || embeds.length > 10) throw new Error("discord: embeds");
  for (const e of embeds) {
    if (e.title.length > 256 || !Number.isInteger(e.color) || e.fields.length > 25 || Number.isNaN(Date.parse(e.timestamp))) throw new Error("discord: embed");
    for (const f of e.fields)
      if (f.name.length === 0 || f.name.length > 256 || f.value.length === 0 || f.value.length > 1024) throw new Error("discord: field");
  }
}

/** Telegram's sendMessage shape: chat_id, text ≤ 4096, HTML parse mode with only <b>, <i>, <a> tags. */
export function telegramShape(b: Record<string, unknown>): void {
  if (typeof b.chat_id !== "string" || typeof b.text !== "string" || b.text.length > 4096 || b.parse_mode !== "HTML") throw new Error("telegram: fields");
  for (const tag of b.text.matchAll(/<\/?([a-z]+)[^>]*>/g)) if (!["b", "i", "a"].includes(tag[1])) throw new Error(`telegram: tag ${tag[1]}`);
}

export function jsonShape(b: Record<string, unknown>): void {
  for (const k of ["id", "event", "chain", "time", "title", "trust_root_confirmed"]) if (!(k in b)) throw new Error(`json: ${k}`);
}
