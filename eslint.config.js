// ESLint (typescript-eslint): the recommended rules, plus the type-aware ones that catch real bugs here — a promise
// nobody awaits or catches, a promise where a callback's result is ignored, `await` on what is not a promise, a throw of
// something that is not an Error, a promise returned from a try whose catch or finally it then escapes. Formatting is
// Prettier's (npm run format), not ESLint's.
// @ts-check
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    // assembly/ is AssemblyScript (its own compiler checks it); the .d.ts beside the generated .wasm bytes only stands in
    // for them before the first build, and no project holds it once they exist.
    ignores: [
      "dist/",
      "build/",
      "node_modules/",
      "test-output/",
      "bench/out/",
      "assembly/",
      "**/*.generated.ts",
      "**/*.generated.d.ts",
      "examples/light-client/dist/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.mts"],
    languageOptions: {
      parserOptions: { project: ["./tsconfig.check.json", "./examples/light-client/tsconfig.json"], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      // The pure-TS core's refusals and decode failures are plain objects on purpose: thrown and caught within their
      // module (no stack to capture on a forged proof or a malformed plan), the twins of the wasm core's status words.
      "@typescript-eslint/only-throw-error": [
        "error",
        {
          allow: [
            { from: "file", name: "Refusal", path: "bindings/core/js/ics23.ts" },
            { from: "file", name: "DecodeFailure", path: "bindings/core/js/plan.ts" },
          ],
        },
      ],
      "@typescript-eslint/return-await": ["error", "error-handling-correctness-only"],
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: { ...globals.node } },
    rules: { "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }] },
  },
  {
    // A page that rebuilds its cards on each poll detaches the elements allInnerTexts() found before it reads them.
    files: ["test/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name='allInnerTexts']",
          message: "allInnerTexts() may read detached elements (no tabs, no line breaks): use innerTexts() from test/examples/light-client/helpers.ts.",
        },
      ],
    },
  },
  {
    files: ["examples/light-client/src/**/*.ts", "bench/light/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
  },
);
