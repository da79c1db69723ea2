// ESLint (typescript-eslint): the recommended rules, plus the type-aware ones that catch real bugs here — a promise
// nobody awaits or catches, a promise where a callback's result is ignored, `await` on what is not a promise, a throw of
// something that is not an Error. Formatting is Prettier's (npm run format), not ESLint's.
// @ts-check
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["dist/", "build/", "node_modules/", "test-output/", "bench/out/", "assembly/", "bindings/core/wasm/bytes.generated.ts", "**/*.generated.ts", "examples/light-client/dist/"],
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
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, attributes: false } }],
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", destructuredArrayIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: { ...globals.node } },
    rules: { "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }] },
  },
  {
    files: ["examples/light-client/src/**/*.ts", "bench/light/**/*.ts"],
    languageOptions: { globals: { ...globals.browser } },
  },
);
