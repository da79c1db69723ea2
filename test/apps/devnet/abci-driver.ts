/**
 * Driving the devnet's ABCI app in process the way CometBFT drives it: a node home's CometBFT genesis, the
 * InitChain request it gives, and blocks at genesis + height seconds (the header's time: the only clock the
 * app may use).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fromBase64 } from "@cosmjs/encoding";
import { sha256 } from "@cosmjs/crypto";
import { RequestFinalizeBlock, RequestInitChain } from "cosmjs-types/tendermint/abci/types";

export interface Genesis {
  genesis_time: string;
  chain_id: string;
  validators: { pub_key: { value: string }; power: string }[];
  app_state: unknown;
}

export const genesisOf = (home: string) => JSON.parse(readFileSync(join(home, "config", "genesis.json"), "utf8")) as Genesis;

const seconds = (iso: string) => BigInt(Math.floor(Date.parse(iso) / 1000));

export function initChainRequest(g: Genesis, overrides: Partial<RequestInitChain> = {}): RequestInitChain {
  return RequestInitChain.fromPartial({
    time: { seconds: seconds(g.genesis_time), nanos: 0 },
    chainId: g.chain_id,
    validators: g.validators.map((v) => ({ pubKey: { ed25519: fromBase64(v.pub_key.value) }, power: BigInt(v.power) })),
    appStateBytes: new TextEncoder().encode(JSON.stringify(g.app_state)),
    initialHeight: 1n,
    ...overrides,
  });
}

/** Block `height` at genesis + height seconds. */
export function block(g: Genesis, height: bigint, txs: Uint8Array[] = []): RequestFinalizeBlock {
  return RequestFinalizeBlock.fromPartial({
    height,
    time: { seconds: seconds(g.genesis_time) + height, nanos: 0 },
    txs,
    hash: sha256(new TextEncoder().encode(`block ${height}`)),
  });
}

/** What `p` rejects with (fails when it resolves). */
export async function rejection(p: unknown): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}
