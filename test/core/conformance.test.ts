import { describe } from "vitest";
import { defineCoreCases } from "./cases.js";

describe.each(["wasm", "js"] as const)("conformance: %s", (backend) => defineCoreCases(backend));
