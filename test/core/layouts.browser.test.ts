/** The done-layout properties of layouts.ts in real Chromium, where the same two cores run. */
import { describe } from "vitest";
import { defineDoneLayoutCases } from "./layouts.js";

describe("browser: done records in either store layout", () => defineDoneLayoutCases());
