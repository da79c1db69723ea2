/**
 * cosmos/chain-registry `chain.json` files as a source of a chain's id and RPC endpoints (`apis.rpc[].address`),
 * and nothing else: a registry is a list someone keeps, never a trust root. Pure (the page reads one too).
 */

export interface RegistryChain {
  chainId: string;
  /** The registry's name for it (`chain_name`), for display. */
  name: string;
  /** `apis.rpc[].address`, in the registry's order, duplicates dropped. */
  rpc: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The facts of a parsed chain.json, or the problems that keep it from being one. */
export function registryChain(json: unknown, where: string): RegistryChain | { problems: string[] } {
  if (!isObject(json)) return { problems: [`${where}: not a chain-registry chain.json (not a JSON object)`] };
  const problems: string[] = [];
  const chainId = typeof json.chain_id === "string" && json.chain_id !== "" ? json.chain_id : undefined;
  if (!chainId) problems.push(`${where}: chain_id is missing`);
  const apis = isObject(json.apis) ? json.apis : {};
  const list = Array.isArray(apis.rpc) ? apis.rpc : [];
  const rpc: string[] = [];
  for (const entry of list) {
    const address = isObject(entry) && typeof entry.address === "string" ? entry.address.trim().replace(/\/+$/, "") : "";
    if (/^(https?|tcp):\/\//.test(address) && !rpc.includes(address)) rpc.push(address);
  }
  if (problems.length > 0) return { problems };
  return { chainId: chainId!, name: typeof json.chain_name === "string" ? json.chain_name : chainId!, rpc };
}
