/** The transaction flags' values, checked: fees, gas, memo, broadcast timeout, and `--offline`'s account. */
import type { Core } from "../../../core/contract.js";
import { parseCoinList } from "../coins.js";
import { CliError } from "../errors.js";
import { durationFlag, integerValue } from "../flags.js";
import type { TxOpts } from "./flags.js";
import { POSITIVE_UINT64, UINT64 } from "../../../go/option.js";
import type { Coin } from "../../../core/types.js";

export const DEFAULT_GAS = 200000n;

/** `--offline`: the account number and sequence the caller vouches for. */
export function offlineAccount(opts: TxOpts): { accountNumber: bigint; sequence: bigint } | undefined {
  if (!opts.offline) {
    if (opts.accountNumber !== undefined || opts.sequence !== undefined) throw new CliError("--account-number and --sequence are only used with --offline");
    return undefined;
  }
  const missing = [
    ["chain-id", opts.chainId],
    ["account-number", opts.accountNumber],
    ["sequence", opts.sequence],
  ]
    .filter(([, v]) => v === undefined)
    .map(([f]) => `"${f}"`)
    .sort();
  if (missing.length > 0) throw new CliError(`required flag(s) ${missing.join(", ")} not set (needed with --offline)`);
  return { accountNumber: integerValue("--account-number", opts.accountNumber!, UINT64), sequence: integerValue("--sequence", opts.sequence!, UINT64) };
}

export interface TxSettings {
  fees: Coin[];
  gas: bigint;
  memo: string;
  timeoutMs: number;
  /** `--wait-upgrade`: how long to wait through an upgrade halt (0: not at all). */
  waitUpgradeMs: number;
}

export function txSettings(core: Core, opts: TxOpts): TxSettings {
  const fees = opts.fees === undefined ? [] : parseCoinList(core, opts.fees, "invalid --fees");
  let gas = DEFAULT_GAS;
  if (opts.gas !== undefined) gas = integerValue("--gas", opts.gas, POSITIVE_UINT64, "(gas simulation is not supported)");
  const timeout = opts.broadcastTimeout === undefined ? 30_000_000_000n : durationFlag("broadcast-timeout", opts.broadcastTimeout, "timeout");
  const waitUpgrade = opts.waitUpgrade === undefined ? 0n : durationFlag("wait-upgrade", opts.waitUpgrade, "timeout");
  return { fees, gas, memo: opts.note ?? "", timeoutMs: Number(timeout / 1_000_000n), waitUpgradeMs: Number(waitUpgrade / 1_000_000n) };
}
