/**
 * The module's errors (as the SDK's x/upgrade/types/errors.go): codespaces, codes and exact messages.
 * They are defined with the core, which raises most of them, so both cores word every error alike.
 */
export { UpgradeError, errors, haltExitCode, type UpgradeErrorKind } from "../core/errors.js";
