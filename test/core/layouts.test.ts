import { describe } from "vitest";
import { defineDoneLayoutCases } from "./layouts.js";

describe("done records in either store layout", () => defineDoneLayoutCases());
