/**
 * A chain's own page, linked from its row: the config's `page`, else the single-chain page (examples/light-client,
 * served beside the fleet view) with the chain's endpoints and trust root in the link — a root that arrives in a
 * link is unconfirmed until the user confirms it there (docs/spec/light-client.md §2.1). Pure.
 */
import type { TrustOrigin } from "../../light/trust-root.js";
import type { ChainConfig } from "./config.js";

export function chainLink(c: ChainConfig, origin?: TrustOrigin): string {
  if (c.page) return c.page;
  const q = new URLSearchParams({ rpc: c.rpc, mode: "verified" });
  for (const w of c.witnesses) q.append("witness", w);
  const root = c.trust ?? (origin && { height: origin.height, hash: origin.hash });
  if (root) {
    q.set("trust_height", root.height.toString());
    q.set("trust_hash", root.hash);
  }
  return `index.html?${q}`;
}
