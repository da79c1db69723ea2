/** What plan-info parsing, checks and downloads report: the message is the whole, user-facing text. */
export class PlanInfoError extends Error {
  override name = "PlanInfoError";
}
