/**
 * The trust panel above the cards in verified mode (docs/spec/light-client.md §9.3): what the page's trust rests on
 * whenever that is not a root the user confirmed, and the only ways to change it —
 *
 * - no root: a root typed from the user's own source (height and hash), or, as a secondary and labelled choice,
 *   this node's latest header, unverified (amber until confirmed);
 * - an unconfirmed root (first use, a link, one saved so): confirmed by pasting the hash of its block from a source
 *   the user trusts — the same hash confirms it, another is refused;
 * - a link that tries to replace a confirmed root (set aside, never applied): replaced only the same way;
 * - a refusal: the user's source knows another chain.
 *
 * Confirming is pasting a hash, never a click: the full hash of an unconfirmed root is not shown anywhere on the
 * page (view-verified.ts shortens it), so it can only come from elsewhere. The panel is rebuilt only when what it
 * says changes, so polling never clears what the user is typing.
 */
import { describeRoot, trustRoot, type ResolvedRoot } from "xupgrade/light";
import { h } from "./view.js";
import type { TrustView } from "./verified.js";

export type TrustPanel =
  | { kind: "none" }
  | { kind: "no-root"; chainId: string; node: string }
  | { kind: "unconfirmed"; trust: TrustView }
  | { kind: "set-aside"; trust: TrustView }
  | { kind: "refused"; trust: TrustView; height: bigint; theirs: string };

/** What the user can do; each hash is 64 hex digits, upper case, from the user's own source. */
export interface TrustActions {
  giveRoot(height: bigint, hash: string): void;
  trustFirstUse(): void;
  confirm(hash: string): void;
  replace(hash: string): void;
}

/** A block hash as a page shows it while no root is confirmed: enough to recognise, not enough to paste. */
export const shortHash = (hash: string) => `${hash.slice(0, 12)}…${hash.slice(-6)}`;

/** The library's words for a root, with the full hash of an unconfirmed root shortened (see above). */
export function rootWords(root: ResolvedRoot, words: string): string {
  return root.confirmed ? words : words.split(root.origin.hash).join(shortHash(root.origin.hash));
}

const upper = (b: Uint8Array) =>
  [...b]
    .map((x) => x.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();

/** A root typed by the user, checked as the library checks a root (height > 0, a 32-byte hash): or why not. */
export function parseRoot(heightText: string, hashText: string): { height: bigint; hash: string } | { error: string } {
  const height = heightText.trim();
  if (!/^[0-9]{1,19}$/.test(height)) return { error: "The height is a block height: a whole number, like 1234567." };
  try {
    const r = trustRoot({ height: BigInt(height), hash: hashText.trim() });
    return { height: r.height, hash: upper(r.hash) };
  } catch (e) {
    return { error: `${(e as Error).message[0].toUpperCase()}${(e as Error).message.slice(1)}.` };
  }
}

function errorLine(): HTMLElement {
  return h("p", { class: "form-error", "data-testid": "trust-form-error", role: "alert" });
}

/** A form of labelled inputs and one button; `submit` gets the values and returns an error to show, or nothing. */
function form(
  testid: string,
  fields: { name: string; label: string; placeholder: string; size?: string }[],
  button: string,
  submit: (values: Record<string, string>) => string | undefined,
): HTMLElement {
  const error = errorLine();
  const el = h("form", { class: "trust-form", "data-testid": testid, autocomplete: "off" });
  for (const f of fields) {
    el.append(
      h(
        "label",
        {},
        `${f.label} `,
        h("input", { name: f.name, type: "text", spellcheck: "false", placeholder: f.placeholder, class: f.size ?? "", "data-testid": `${testid}-${f.name}` }),
      ),
    );
  }
  el.append(h("button", { type: "submit", "data-testid": `${testid}-submit` }, button), error);
  el.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const values = Object.fromEntries(fields.map((f) => [f.name, (el.querySelector(`input[name="${f.name}"]`) as HTMLInputElement).value]));
    error.textContent = submit(values) ?? "";
  });
  return el;
}

function rootForm(a: TrustActions): HTMLElement {
  return form(
    "root-form",
    [
      { name: "height", label: "height", placeholder: "1234567", size: "height" },
      { name: "hash", label: "hash", placeholder: "64 hex digits", size: "hash" },
    ],
    "Verify from this root",
    (v) => {
      const r = parseRoot(v.height, v.hash);
      if ("error" in r) return r.error;
      a.giveRoot(r.height, r.hash);
      return undefined;
    },
  );
}

/** A form for the hash of block `height` from the user's source. */
function hashForm(testid: string, height: bigint, button: string, act: (hash: string) => void): HTMLElement {
  return form(testid, [{ name: "hash", label: `hash of block ${height}`, placeholder: "paste it from your source", size: "hash" }], button, (v) => {
    const r = parseRoot(height.toString(), v.hash);
    if ("error" in r) return r.error;
    act(r.hash);
    return undefined;
  });
}

const SOURCES = "your own node (its /commit?height=H answers signed_header.commit.block_id.hash), a validator you know, or a block explorer";

/** What the panel says, as a key: hashes shortened (a data attribute is on the page too). */
function panelKey(p: TrustPanel): string {
  switch (p.kind) {
    case "none":
      return "none";
    case "no-root":
      return `no-root|${p.chainId}|${p.node}`;
    case "unconfirmed":
      return `unconfirmed|${p.trust.chainId}|${p.trust.root.origin.height}|${shortHash(p.trust.root.origin.hash)}`;
    case "set-aside":
      return `set-aside|${p.trust.chainId}|${shortHash(p.trust.root.setAside?.hash ?? "")}|${shortHash(p.trust.replaceRefused?.theirs ?? "")}`;
    case "refused":
      return `refused|${p.trust.chainId}|${p.height}|${shortHash(p.theirs)}`;
  }
}

export function renderTrustPanel(el: HTMLElement, p: TrustPanel, a: TrustActions): void {
  const key = panelKey(p);
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  el.dataset.kind = p.kind;
  if (p.kind === "none") {
    el.className = "";
    el.replaceChildren();
    return;
  }
  if (p.kind === "no-root") {
    el.className = "trust-panel amber";
    el.replaceChildren(
      h("h2", { "data-testid": "trust-headline" }, `No trust root for ${p.chainId}`),
      h(
        "p",
        {},
        "Nothing on this page is verified. Verified mode checks every header from a trust root: the height and hash of a recent block of ",
        h("strong", {}, p.chainId),
        ` from a source you trust — ${SOURCES}. Its hash decides which chain is verified, so it must not come from the node being checked (${p.node}).`,
      ),
      rootForm(a),
      h("p", { class: "or" }, "or, knowing that nothing then checks the chain itself:"),
      h(
        "p",
        {},
        h("button", { type: "button", class: "secondary", "data-testid": "trust-first-use" }, "Trust this node's latest header, unverified"),
        " ",
        h(
          "span",
          { class: "muted" },
          `${p.node}'s own word for the chain: everything is then verified against it, marked amber, until you confirm its hash from a source you trust.`,
        ),
      ),
    );
    el.querySelector('[data-testid="trust-first-use"]')!.addEventListener("click", () => a.trustFirstUse());
    return;
  }
  const root = p.trust.root;
  const o = root.origin;
  if (p.kind === "unconfirmed") {
    el.className = "trust-panel amber";
    el.replaceChildren(
      h("h2", { "data-testid": "trust-headline" }, `Unconfirmed trust root for ${p.trust.chainId}`),
      h(
        "p",
        { "data-testid": "trust-summary" },
        `Everything below is verified against ${rootWords(root, describeRoot(root))} — and nothing has checked that this root is of the chain you mean: a node can serve a chain of its own, and it would verify.`,
      ),
      h(
        "p",
        {},
        "To confirm it, look up block ",
        h("strong", { "data-testid": "confirm-height" }, o.height.toString()),
        ` of ${p.trust.chainId} at a source you trust — ${SOURCES} — and paste its hash here. The same hash confirms the root: the badges turn green and this browser keeps it. Another hash means this node's chain is not the one your source knows.`,
      ),
      hashForm("confirm-form", o.height, "Confirm", (hash) => a.confirm(hash)),
      h("details", {}, h("summary", {}, "or start from another root, from your source"), rootForm(a)),
    );
    return;
  }
  if (p.kind === "set-aside") {
    const aside = root.setAside!;
    el.className = "trust-panel red";
    const refused = p.trust.replaceRefused;
    el.replaceChildren(
      h("h2", { "data-testid": "trust-headline" }, `This link tries to replace the trust root you confirmed for ${p.trust.chainId} — it was not applied`),
      h(
        "p",
        { "data-testid": "set-aside" },
        `The link names block ${aside.height}, hash ${shortHash(aside.hash)}. A link can come from anyone; the page keeps verifying against ${describeRoot(root)}. Open links with a trust root only from people you trust.`,
      ),
      refused
        ? h(
            "p",
            { class: "problem", "data-testid": "replace-refused" },
            `Your source gives ${shortHash(refused.theirs)} as the hash of block ${refused.height}, not the link's ${shortHash(aside.hash)}: the link's root is not of your chain. Your root is kept.`,
          )
        : "",
      h("p", {}, `To replace your root with the link's anyway, look up block ${aside.height} at a source you trust and paste its hash:`),
      hashForm("replace-form", aside.height, "Replace my root", (hash) => a.replace(hash)),
    );
    return;
  }
  el.className = "trust-panel red";
  el.replaceChildren(
    h("h2", { "data-testid": "trust-headline" }, `Refused: this node's chain is not the one your source knows`),
    h(
      "p",
      { "data-testid": "root-refused" },
      `Your source gives ${shortHash(p.theirs)} as the hash of block ${p.height}; the root this page verified from has ${shortHash(o.hash)} there (${rootWords(root, describeRoot(root))}). ` +
        `Nothing here is verified: what ${o.node} shows is not your chain's state.`,
    ),
    h("p", {}, `If you pasted the hash of another block, paste block ${p.height}'s:`),
    hashForm("confirm-form", p.height, "Confirm", (hash) => a.confirm(hash)),
    h("p", {}, "Or start from a root from your source:"),
    rootForm(a),
  );
}
