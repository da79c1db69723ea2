/** What plan-info parsing, checks and downloads report: the message is the whole, user-facing text. */
export class PlanInfoError extends Error {
  override name = "PlanInfoError";
}

/** The transfer failed: a file that cannot be opened or read, a size or time limit breached (docs/spec/sidecar.md §7.2). */
export class DownloadError extends PlanInfoError {
  override name = "DownloadError";
}

/** The downloaded bytes are not the ones Plan.Info's checksum names (docs/spec/sidecar.md §7.3). */
export class ChecksumMismatchError extends PlanInfoError {
  override name = "ChecksumMismatchError";
}

/** An archive format this project does not unpack (`?archive=` or the URL's extension). */
export class UnsupportedArchiveError extends PlanInfoError {
  override name = "UnsupportedArchiveError";
}

/** An archive refused whole by the hostile-archive rules: an unsafe entry name or type, too many entries or bytes. */
export class UnsafeArchiveError extends PlanInfoError {
  override name = "UnsafeArchiveError";
}

/** An archive that cannot be read, extracted or decompressed. */
export class BrokenArchiveError extends PlanInfoError {
  override name = "BrokenArchiveError";
}

/** The binary cannot be put at `bin/<daemon>`: the archive holds none, it is not a regular file, or the move failed. */
export class BinaryInstallError extends PlanInfoError {
  override name = "BinaryInstallError";
}
