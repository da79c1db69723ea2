/** The transaction flags (docs/spec/interfaces.md §7.2): declarations only (their checks are in settings.ts). */
import type { Command } from "commander";
import { addHome, addKeyringFlags, addNode, addOutput, type KeyringOpts, type NodeOpts } from "../flags.js";

export interface TxOpts extends NodeOpts, KeyringOpts {
  from?: string;
  chainId?: string;
  fees?: string;
  gas?: string;
  note?: string;
  generateOnly?: boolean;
  yes?: boolean;
  broadcastTimeout?: string;
  waitUpgrade?: string;
  offline?: boolean;
  accountNumber?: string;
  sequence?: string;
}

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
    .option(
      "--wait-upgrade <duration>",
      "when the chain is halted for an upgrade (or halts before including the transaction), wait up to this long for it to resume on the new binary, then broadcast or rebroadcast the same signed transaction (committed at most once); without it the command says where the transaction stands and exits",
    )
    .option(
      "--offline",
      "sign without contacting the node (needs --chain-id, --account-number, --sequence) and print the signed transaction instead of broadcasting it",
    )
    .option("--account-number <n>", "account number of the signer (with --offline)")
    .option("--sequence <n>", "sequence of the signer (with --offline)");
}
