/**
 * Tx-level and module errors as a Cosmos node reports them in CheckTx/DeliverTx results: a codespace, a
 * code and a log `<wrap text>: <base message>` (docs/spec/interfaces.md §7), plus the process exit codes.
 */
import { EXIT_CODES, UpgradeError } from "../../../core/errors.js";
import { messageOf } from "../../../base/errors.js";

export class TxError extends Error {
  override name = "TxError";
  constructor(
    readonly codespace: string,
    readonly code: number,
    /** The log as the node reports it. */
    readonly log: string,
  ) {
    super(log);
  }
}

const wrap = (base: string, text?: string) => (text === undefined || text === "" ? base : `${text}: ${base}`);
const sdk = (code: number, base: string) => (text?: string) => new TxError("sdk", code, wrap(base, text));
const gov = (code: number, base: string) => (text?: string) => new TxError("gov", code, wrap(base, text));

export const txErrors = {
  txDecode: sdk(2, "tx parse error"),
  invalidSequence: sdk(3, "invalid sequence"),
  unauthorized: sdk(4, "unauthorized"),
  insufficientFunds: sdk(5, "insufficient funds"),
  unknownRequest: sdk(6, "unknown request"),
  invalidAddress: sdk(7, "invalid address"),
  invalidPubKey: sdk(8, "invalid pubkey"),
  unknownAddress: sdk(9, "unknown address"),
  invalidCoins: sdk(10, "invalid coins"),
  outOfGas: sdk(11, "out of gas"),
  memoTooLarge: sdk(12, "memo too large"),
  insufficientFee: sdk(13, "insufficient fee"),
  tooManySignatures: sdk(14, "maximum number of signatures exceeded"),
  noSignatures: sdk(15, "no signatures supplied"),
  invalidRequest: sdk(18, "invalid request"),
  txInMempool: sdk(19, "tx already in mempool"),
  mempoolIsFull: sdk(20, "mempool is full"),
  txTooLarge: sdk(21, "tx too large"),
  keyNotFound: sdk(22, "key not found"),
  wrongSequence: sdk(32, "incorrect account sequence"),
  unknownExtensionOptions: sdk(31, "unknown extension options"),
  txTimeoutHeight: sdk(30, "tx timeout height"),
  invalidType: sdk(29, "invalid type"),
  notSupported: sdk(37, "feature not supported"),

  govUnknownProposal: gov(2, "unknown proposal"),
  govInactiveProposal: gov(3, "inactive proposal"),
  govInvalidVote: gov(7, "invalid vote option"),
  govUnroutable: gov(10, "proposal message not recognized by router"),
  govNoMessages: gov(11, "no messages proposed"),
  govInvalidProposalMsg: gov(12, "invalid proposal message"),
  govInvalidSigner: gov(13, "expected gov account as only signer for proposal message"),
  govMetadataTooLong: gov(15, "metadata too long"),
  govMinDepositTooSmall: gov(16, "minimum deposit is too small"),
  govInvalidProposal: gov(21, "invalid proposal"),
  govSummaryTooLong: gov(22, "summary too long"),
  govInvalidDepositDenom: gov(23, "invalid deposit denom"),
};

/** A failure from a message handler as a TxError: UpgradeErrors keep their codespace and code. */
export function toTxError(e: unknown): TxError {
  if (e instanceof TxError) return e;
  if (e instanceof UpgradeError) return new TxError(e.codespace, e.code, e.message);
  return new TxError("undefined", 1, messageOf(e));
}

/**
 * The process exit code for an error that stopped the devnet (docs/spec/keeper.md §6.1): an UpgradeError's
 * own code (20 upgrade needed, 21 binary too early, 22 downgrade, 24 info write, 25 corrupt store), 23 for
 * an upgrade handler's own error (pass `{handler: true}`), 1 for anything else. A clean stop is 0.
 */
export function exitCodeFor(err: unknown, options: { handler?: boolean } = {}): number {
  if (err === undefined || err === null) return 0;
  if (err instanceof UpgradeError) {
    const code = err.exitCode;
    if (code !== 1) return code;
    return options.handler ? EXIT_CODES["handler-failed"] : 1;
  }
  if (typeof err === "object" && typeof (err as { exitCode?: unknown }).exitCode === "number") {
    return (err as { exitCode: number }).exitCode;
  }
  return options.handler ? EXIT_CODES["handler-failed"] : 1;
}

/**
 * What a devnet failure a user can act on is about; the message is the whole text.
 *
 * - `option`:    an option of initDevnet, initTestnet, startDevnet or rehearseUpgrade (durations, counts, names, engine, pruning);
 * - `home`:      the home's files: missing, unreadable, invalid, already initialised, or made for another engine or version;
 * - `genesis`:   a genesis whose app state and validators do not fit together;
 * - `app`:       an application definition that cannot be loaded or is invalid;
 * - `cometbft`:  the CometBFT binary: missing, not executable, not v0.38;
 * - `snapshot`:  the committed state a rehearsal starts from cannot be had;
 * - `rehearsal`: the rehearsal cannot run (nothing scheduled, a height too early, a plan not due on the copy);
 * - `network`:   this machine cannot give the nodes what they need (free loopback ports).
 */
export type DevnetErrorKind = "option" | "home" | "genesis" | "app" | "cometbft" | "snapshot" | "rehearsal" | "network";

/** A devnet failure a user can act on, by kind (exit code 1). */
export class DevnetError extends Error {
  override name = "DevnetError";
  constructor(
    readonly kind: DevnetErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An error carrying the exit code the devnet stopped with. */
export class DevnetHaltError extends Error {
  override name = "DevnetHaltError";
  constructor(
    message: string,
    readonly exitCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Bytes written as text (base64, hex) that do not decode; the message is Go's decoder's. */
export class InvalidEncodingError extends Error {
  override name = "InvalidEncodingError";
}

/** A decimal (the SDK's LegacyDec text: digits, at most 18 after the point) that does not parse. */
export class InvalidDecimalError extends Error {
  override name = "InvalidDecimalError";
}

/** A protobuf message that does not decode (read without its generated type: a proposal's authority). */
export class MalformedMessageError extends Error {
  override name = "MalformedMessageError";
}

/**
 * A call out of the order ABCI prescribes: InitChain on a chain that has blocks, a
 * block that does not follow the last committed one, a block executed twice, a first block before InitChain.
 */
export class ChainSequenceError extends Error {
  override name = "ChainSequenceError";
}

/** The app hash committed is not the one FinalizeBlock answered: a host store changed between the two. */
export class AppHashMismatchError extends Error {
  override name = "AppHashMismatchError";
}
