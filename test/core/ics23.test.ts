import { describe } from "vitest";
import { defineIcs23Cases } from "./ics23.js";

describe.each(["wasm", "js"] as const)("ICS23 proofs: %s", (backend) => defineIcs23Cases(backend));
