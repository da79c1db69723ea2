/**
 * An alert in the shape each receiver documents (docs/spec/watch.md §6.2):
 *
 * - Slack incoming webhooks: `{"text", "blocks"}` — `text` is the notification's fallback, `blocks` a `header` and
 *   a `section` of mrkdwn (at most 3,000 characters per text object), a `context` with the id;
 * - Discord webhooks (Execute Webhook): `{"content", "embeds": [{title, description, url, color, fields, footer,
 *   timestamp}]}` within Discord's limits (content 2,000, title 256, description 4,096, 25 fields of 256/1,024);
 * - Telegram's Bot API `sendMessage` (the webhook URL is `https://api.telegram.org/bot<token>/sendMessage`):
 *   `{"chat_id", "text", "parse_mode": "HTML", "link_preview_options"}`, text at most 4,096 characters, `<`, `>`, `&`
 *   escaped;
 * - generic JSON: the alert itself, snake_case, for anything else.
 *
 * Every shape carries the alert's id, so a receiver can drop a duplicate (docs/spec/watch.md §6.3).
 */
import type { Alert } from "./alerts.js";
import type { WebhookConfig } from "./config.js";

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
const COLORS: Record<Alert["kind"], number> = {
  proposal_passed: 0x2e7d32,
  plan_scheduled: 0x1565c0,
  plan_changed: 0xef6c00,
  plan_cancelled: 0x6d4c41,
  lead: 0x1565c0,
  readiness_low: 0xc62828,
  halt: 0xef6c00,
  still_halted: 0xc62828,
  resumed: 0x2e7d32,
  verification_failed: 0xc62828,
};

/** The generic JSON body (snake_case). */
export function alertJson(a: Alert): Record<string, unknown> {
  return {
    id: a.id,
    event: a.kind,
    chain: a.chain,
    chain_id: a.chainId ?? null,
    time: new Date(a.at).toISOString(),
    title: a.title,
    plan: a.plan ?? null,
    eta: a.eta ?? null,
    verified: a.verified ?? null,
    trust_root_confirmed: !a.unconfirmed,
    late: a.late === true,
    facts: Object.fromEntries(a.facts),
    link: a.link ?? null,
    source: "xupgrade watch",
  };
}

const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const html = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function slack(a: Alert): Record<string, unknown> {
  const lines = a.facts.map(([k, v]) => `*${slackEscape(k)}:* ${slackEscape(v)}`).join("\n");
  return {
    text: cut(a.title, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: cut(a.title, 150), emoji: false } },
      { type: "section", text: { type: "mrkdwn", text: cut(lines + (a.link ? `\n<${a.link}|the chain's page>` : ""), 3000) } },
      { type: "context", elements: [{ type: "mrkdwn", text: cut(`xupgrade watch · ${slackEscape(a.id)}`, 3000) }] },
    ],
  };
}

function discord(a: Alert): Record<string, unknown> {
  return {
    content: cut(a.title, 2000),
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: cut(a.title, 256),
        ...(a.link ? { url: a.link } : {}),
        color: COLORS[a.kind],
        fields: a.facts.slice(0, 25).map(([k, v]) => ({ name: cut(k, 256), value: cut(v || "—", 1024), inline: false })),
        footer: { text: cut(`xupgrade watch · ${a.id}`, 2048) },
        timestamp: new Date(a.at).toISOString(),
      },
    ],
  };
}

function telegram(a: Alert, chatId: string): Record<string, unknown> {
  const body = [
    `<b>${html(a.title)}</b>`,
    ...a.facts.map(([k, v]) => `<b>${html(k)}:</b> ${html(v)}`),
    a.link ? `<a href="${html(a.link)}">the chain's page</a>` : "",
    `<i>${html(a.id)}</i>`,
  ]
    .filter((l) => l !== "")
    .join("\n");
  return { chat_id: chatId, text: cut(body, 4096), parse_mode: "HTML", link_preview_options: { is_disabled: true } };
}

/** The body POSTed to a webhook for an alert. */
export function payload(a: Alert, hook: Pick<WebhookConfig, "format" | "chatId">): Record<string, unknown> {
  switch (hook.format) {
    case "slack":
      return slack(a);
    case "discord":
      return discord(a);
    case "telegram":
      return telegram(a, hook.chatId ?? "");
    case "json":
      return alertJson(a);
  }
}
