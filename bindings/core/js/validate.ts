/** Plan.ValidateBasic (keeper-behaviour §4): the first failing check, in order. */
import type { Plan } from "../types.js";
import { Status, statusError } from "../status.js";

export function validateBasic(plan: Plan, timeIsZero: boolean): void {
  if (!timeIsZero) throw statusError(Status.TimeDeprecated);
  if (plan.name.length === 0) throw statusError(Status.NameEmpty);
  if (plan.height <= 0n) throw statusError(Status.HeightNotPositive);
}
