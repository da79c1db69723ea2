/**
 * How a failed query looks on each surface (docs/spec/interfaces.md §2–§4): the gRPC status (code + message), the
 * REST `google.rpc.Status` body and HTTP status derived from it, and the ABCI (code, codespace, log).
 */
import { UpgradeError } from "../core/errors.js";
import { INTERNAL_ABCI, INTERNAL_MESSAGE, safeReport, type InternalErrorReporter } from "./internal.js";

/** gRPC status codes used here. */
export const GrpcCode = {
  OK: 0,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAUTHENTICATED: 16,
} as const;

/** grpc-gateway's HTTP status for a gRPC code (docs/spec/interfaces.md §3). */
const HTTP_OF_CODE = [200, 408, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401];

export function httpStatusOf(grpcCode: number): number {
  return HTTP_OF_CODE[grpcCode] ?? 500;
}

export interface AbciError {
  codespace: string;
  code: number;
  log: string;
}

/** A failed query: what gRPC/REST report and what ABCI reports. */
export class QueryError extends Error {
  override name = "QueryError";
  /** Set by {@link internalError}: the answer is the generic one and `cause` holds the unexpected error. */
  internal = false;
  constructor(
    readonly grpcCode: number,
    readonly grpcMessage: string,
    readonly abci: AbciError,
    options?: { cause?: unknown },
  ) {
    super(grpcMessage, options);
  }
}

/**
 * The answer to an unexpected error (docs/spec/interfaces.md §12.1): gRPC INTERNAL `internal error`, REST 500
 * with the same text, ABCI `undefined`/1 `internal`; the error itself is kept as `cause` for the report.
 */
export function internalError(cause: unknown): QueryError {
  const err = new QueryError(GrpcCode.INTERNAL, INTERNAL_MESSAGE, { ...INTERNAL_ABCI }, { cause });
  err.internal = true;
  return err;
}

/**
 * What a surface answers for anything thrown: a QueryError as it is, an UpgradeError as the SDK words it,
 * anything else as {@link internalError} — reported (with the surface's name) before it is answered.
 */
export function answerFor(e: unknown, surface: string, report: InternalErrorReporter): QueryError {
  const err = e instanceof QueryError ? e : handlerError(e);
  if (err.internal) safeReport(report, err.cause, surface);
  return err;
}

/** `codespace <cs> code <n>: <base>[: <wrap>]`, the gRPC text of a registered (wrapped) SDK error. */
function grpcText(codespace: string, code: number, base: string, wrap?: string): string {
  return `codespace ${codespace} code ${code}: ${base}${wrap === undefined ? "" : `: ${wrap}`}`;
}

/** `[<wrap>: ]<base>`, the error's own text (what ABCI logs). */
function ownText(base: string, wrap?: string): string {
  return wrap === undefined ? base : `${wrap}: ${base}`;
}

/**
 * An SDK error raised by the query machinery itself (baseapp: heights, headers). gRPC sees Unknown with the
 * registered-error text; ABCI sees the error unchanged.
 */
export function sdkError(codespace: string, code: number, base: string, wrap?: string): QueryError {
  return new QueryError(GrpcCode.UNKNOWN, grpcText(codespace, code, base, wrap), {
    codespace,
    code,
    log: ownText(base, wrap),
  });
}

/** Base messages of the registered errors the keeper raises (docs/spec/keeper.md §10). */
const BASES: Record<string, string> = {
  "upgrade/2": "module version not found",
  "upgrade/3": "upgrade plan not found",
  "upgrade/4": "upgraded client not found",
  "upgrade/5": "upgraded consensus state not found",
  "upgrade/6": "expected authority account as only signer for proposal message",
  "sdk/18": "invalid request",
  "xupgrade/1": "corrupt store value",
  "xupgrade/2": "malformed protobuf",
  "xupgrade/3": "invalid upgrade info file",
};

/**
 * An error returned by a query handler (a module error). gRPC: Unknown with the registered-error text.
 * ABCI goes through baseapp's gRPCErrorToSDKError: Unknown → sdk/6 `<own text>: unknown request`.
 * Anything that is not an UpgradeError is unexpected: {@link internalError}.
 */
export function handlerError(err: unknown): QueryError {
  if (err instanceof QueryError) return err;
  if (err instanceof UpgradeError) {
    const base = BASES[`${err.codespace}/${err.code}`];
    let grpc: string;
    if (base !== undefined && err.message === base) grpc = grpcText(err.codespace, err.code, base);
    else if (base !== undefined && err.message.endsWith(`: ${base}`)) {
      grpc = grpcText(err.codespace, err.code, base, err.message.slice(0, -(base.length + 2)));
    } else grpc = `codespace ${err.codespace} code ${err.code}: ${err.message}`;
    return new QueryError(GrpcCode.UNKNOWN, grpc, unknownRequest(err.message));
  }
  return internalError(err);
}

function unknownRequest(message: string): AbciError {
  return { codespace: "sdk", code: 6, log: `${message}: unknown request` };
}

/** Undecodable request bytes: gRPC Internal as grpc-go's codec; ABCI sdk/18. */
export function decodeError(detail: string): QueryError {
  return new QueryError(GrpcCode.INTERNAL, `grpc: error unmarshalling request: ${detail}`, {
    codespace: "sdk",
    code: 18,
    log: `${detail}: invalid request`,
  });
}
