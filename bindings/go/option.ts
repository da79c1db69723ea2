/**
 * Option values — command-line flags, the sidecar's variables, the devnet's settings — read once, in Go's
 * syntax, each kind of option with its one floor (docs/spec/interfaces.md §7, "Option values"):
 *
 * | durations          | floor  | options                                                                  |
 * | ------------------ | ------ | ------------------------------------------------------------------------ |
 * | `margin`           | ≥ 0    | `--safety-delta`, `--halt-grace` (the devnet)                            |
 * | `timeout`          | > 0    | `--broadcast-timeout`; every `DAEMON_*` duration (cosmovisor's rule)     |
 * | `period`           | ≥ 1 ms | block time, voting and deposit periods, `timeout_propose` (the devnet)   |
 *
 * Integers are decimal digits only, as strconv.ParseUint reads them (no sign, no spaces): a range names
 * its least and greatest value. Callers frame the reason for their surface (`invalid --height "x": …`,
 * `invalid: DAEMON_POLL_INTERVAL: …`).
 */
import { MS, formatGoDuration, parseGoDuration } from "./duration.js";
import { INT64_MAX, UINT64_MAX } from "./int.js";

export type DurationKind = "margin" | "timeout" | "period";

/** The least duration of each kind, in nanoseconds. */
export const DURATION_FLOORS: Readonly<Record<DurationKind, bigint>> = { margin: 0n, timeout: 1n, period: MS };

/** Why an option's text is refused: `syntax` (Go's own message) or `range` (below the floor, outside the range). */
export class OptionError extends Error {
  override name = "OptionError";
  constructor(
    readonly problem: "syntax" | "range",
    message: string,
  ) {
    super(message);
  }
}

/** A Go duration of `kind`, in nanoseconds; an OptionError says why not. */
export function parseDurationOption(text: string, kind: DurationKind): bigint {
  let ns: bigint;
  try {
    ns = parseGoDuration(text);
  } catch (e) {
    throw new OptionError("syntax", (e as Error).message);
  }
  const floor = DURATION_FLOORS[kind];
  if (ns < floor) {
    throw new OptionError(
      "range",
      floor === 0n ? "must not be negative" : floor === 1n ? "must be greater than 0" : `must be at least ${formatGoDuration(floor)}`,
    );
  }
  return ns;
}

export interface IntegerRange {
  min: bigint;
  max: bigint;
}

/** A block height: 1 … int64. */
export const HEIGHT: IntegerRange = { min: 1n, max: INT64_MAX };
/** A query height: 0 (the latest) … int64. */
export const QUERY_HEIGHT: IntegerRange = { min: 0n, max: INT64_MAX };
/** A uint64: ids, account numbers, sequences. */
export const UINT64: IntegerRange = { min: 0n, max: UINT64_MAX };
/** A positive uint64 (gas). */
export const POSITIVE_UINT64: IntegerRange = { min: 1n, max: UINT64_MAX };

/** A decimal integer in `range`; an OptionError says why not. */
export function parseIntegerOption(text: string, range: IntegerRange): bigint {
  const value = /^[0-9]+$/.test(text) ? BigInt(text) : undefined;
  if (value !== undefined && value >= range.min && value <= range.max) return value;
  const problem = value === undefined ? "syntax" : "range";
  // A range up to a machine limit is named by its least value alone.
  if (range.max < BigInt(Number.MAX_SAFE_INTEGER)) throw new OptionError(problem, `must be an integer from ${range.min} to ${range.max}`);
  throw new OptionError(
    problem,
    range.min === 0n ? "must be a non-negative integer" : range.min === 1n ? "must be a positive integer" : `must be an integer of at least ${range.min}`,
  );
}

/**
 * A duration variable as cosmovisor reads one (its parseEnvDuration, every variable a `timeout`):
 * `invalid: <NAME>: could not parse '<value>' into a duration: <Go's error>` or `invalid: <NAME>: must be
 * greater than 0` (docs/spec/sidecar.md §3).
 */
export function parseEnvDuration(name: string, raw: string): bigint {
  try {
    return parseDurationOption(raw, "timeout");
  } catch (e) {
    const err = e as OptionError;
    throw new OptionError(
      err.problem,
      err.problem === "syntax" ? `invalid: ${name}: could not parse '${raw}' into a duration: ${err.message}` : `invalid: ${name}: ${err.message}`,
    );
  }
}

/** An integer variable in the same words: `invalid: <NAME>: must be a positive integer, got "<value>"`. */
export function parseEnvInteger(name: string, raw: string, range: IntegerRange): bigint {
  try {
    return parseIntegerOption(raw, range);
  } catch (e) {
    const err = e as OptionError;
    throw new OptionError(err.problem, `invalid: ${name}: ${err.message}, got ${JSON.stringify(raw)}`);
  }
}
