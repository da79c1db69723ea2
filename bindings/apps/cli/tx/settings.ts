/** The transaction flags' values, checked: fees, gas, memo, broadcast timeout, and `--offline`'s account. */
import type { Core } from "../../../core/contract.js";
import { UINT64_MAX } from "../../../go/int.js";
import { parseCoinList } from "../coins.js";
import { CliError } from "../errors.js";
import { durationFlag } from "../flags.js";
import type { TxOpts } from "./flags.js";
import type { Coin } from "./proto.js";

export const DEFAULT_GAS = 200000n;

/** `--offline`: the account number and sequence the caller vouches for. */
export function offlineAccount(opts: TxOpts): { accountNumber: bigint; sequence: bigint } | undefined {
  if (!opts.offline) {
    if (opts.accountNumber !== undefined || opts.sequence !== undefined) throw new CliError("--account-number and --sequence are only used with --offline");
    return undefined;
  }
  const missing = [["chain-id", opts.chainId], ["account-number", opts.accountNumber], ["sequence", opts.sequence]].filter(([, v]) => v === undefined).map(([f]) => `"${f}"`).sort();
  if (missing.length > 0) throw new CliError(`required flag(s) ${missing.join(", ")} not set (needed with --offline)`);
  const u64 = (flag: string, v: string) => {
    if (!/^[0-9]+$/.test(v) || BigInt(v) > UINT64_MAX) throw new CliError(`invalid --${flag} ${JSON.stringify(v)}: must be a non-negative integer`);
    return BigInt(v);
  };
  return { accountNumber: u64("account-number", opts.accountNumber!), sequence: u64("sequence", opts.sequence!) };
}

export interface TxSettings {
  fees: Coin[];
  gas: bigint;
  memo: string;
  timeoutMs: number;
}

export function txSettings(core: Core, opts: TxOpts): TxSettings {
  const fees = opts.fees === undefined ? [] : parseCoinList(core, opts.fees, "invalid --fees");
  let gas = DEFAULT_GAS;
  if (opts.gas !== undefined) {
    if (!/^[0-9]+$/.test(opts.gas) || BigInt(opts.gas) === 0n || BigInt(opts.gas) > UINT64_MAX) {
      throw new CliError(`invalid --gas ${JSON.stringify(opts.gas)}: must be a positive integer (gas simulation is not supported)`);
    }
    gas = BigInt(opts.gas);
  }
  const timeout = opts.broadcastTimeout === undefined ? 30_000_000_000n : durationFlag("broadcast-timeout", opts.broadcastTimeout);
  if (timeout === 0n) throw new CliError(`invalid --broadcast-timeout ${JSON.stringify(opts.broadcastTimeout)}: must be greater than 0`);
  return { fees, gas, memo: opts.note ?? "", timeoutMs: Number(timeout / 1_000_000n) };
}
