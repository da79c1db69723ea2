import type { HaltCase } from "./scenarios.js";

export const TX_CASES: HaltCase[] = [];
