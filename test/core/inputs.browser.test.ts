/** The ill-formed-argument properties of inputs.ts in real Chromium, where the same two cores run. */
import { describe } from "vitest";
import { defineInputCases } from "./inputs.js";

describe("browser: ill-formed arguments at the core's entry points", () => defineInputCases());
