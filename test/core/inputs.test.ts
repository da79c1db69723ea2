import { describe } from "vitest";
import { defineInputCases } from "./inputs.js";

describe("ill-formed arguments at the core's entry points", () => defineInputCases());
