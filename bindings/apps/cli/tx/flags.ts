/** The transaction flags (interfaces.md §7.2) and their checks. */
import type { Command } from "commander";
import type { Core } from "../../../core/contract.js";
import { parseCoinList } from "../coins.js";
import { durationFlag } from "../flags.js";
import { CliError } from "../errors.js";
import { addHome, addKeyringFlags, addNode, addOutput, type KeyringOpts, type NodeOpts } from "../flags.js";
import type { Coin } from "./proto.js";
import { UINT64_MAX } from "../../../go/int.js";

export interface TxOpts extends NodeOpts, KeyringOpts {
  from?: string;
  chainId?: string;
  fees?: string;
  gas?: string;
  note?: string;
  generateOnly?: boolean;
  yes?: boolean;
  broadcastTimeout?: string;
  offline?: boolean;
  accountNumber?: string;
  sequence?: string;
}

export const DEFAULT_GAS = 200000n;

export function addTxFlags(cmd: Command): Command {
  addOutput(addNode(addHome(cmd)));
  addKeyringFlags(cmd);
  return cmd
    .option("--from <key|address>", "name or address of the signing key")
    .option("--chain-id <id>", "chain id to sign for (default: the node's network)")
    .option("--fees <coins>", "fees to pay, e.g. 10stake")
    .option("--gas <n>", "gas limit (default 200000)")
    .option("--note <text>", "memo of the transaction")
    .option("--generate-only", "print the unsigned transaction as JSON and exit (no signing, no broadcast)")
    .option("-y, --yes", "sign and broadcast without asking for confirmation")
    .option("--broadcast-timeout <duration>", "how long to wait for the transaction to be included in a block (default 30s)")
    .option("--offline", "sign without contacting the node (needs --chain-id, --account-number, --sequence) and print the signed transaction instead of broadcasting it")
    .option("--account-number <n>", "account number of the signer (with --offline)")
    .option("--sequence <n>", "sequence of the signer (with --offline)");
}

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
