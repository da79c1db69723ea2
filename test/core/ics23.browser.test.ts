/** The ICS23 cases of ics23.ts in real Chromium, on both cores. */
import { describe } from "vitest";
import { defineIcs23Cases } from "./ics23.js";

describe.each(["wasm", "js"] as const)("browser: ICS23 proofs: %s", (backend) => defineIcs23Cases(backend));
