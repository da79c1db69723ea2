/**
 * The namespace (docs/spec/interfaces.md §0): renames the upgrade query service, its REST prefix and its ABCI paths
 * together. Message packages and type URLs of Plan, Msg*, gov/auth/tx keep `cosmos`.
 */

export const DEFAULT_NAMESPACE = "cosmos";

export const QUERY_METHODS = ["CurrentPlan", "AppliedPlan", "UpgradedConsensusState", "ModuleVersions", "Authority"] as const;
export type QueryMethod = (typeof QUERY_METHODS)[number];

export interface ServiceNames {
  namespace: string;
  /** Protobuf package of the query service, e.g. `cosmos.upgrade.v1beta1`. */
  package: string;
  /** Fully qualified gRPC service name, e.g. `cosmos.upgrade.v1beta1.Query`. */
  service: string;
  /** REST prefix with a trailing slash, e.g. `/cosmos/upgrade/v1beta1/`. */
  restPrefix: string;
  /** ABCI / gRPC path of a method, e.g. `/cosmos.upgrade.v1beta1.Query/CurrentPlan`. */
  methodPath(method: QueryMethod): string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validates a namespace (one protobuf identifier: letters, digits, `_`, not starting with a digit). */
export function serviceNames(namespace: string = DEFAULT_NAMESPACE): ServiceNames {
  if (typeof namespace !== "string" || !IDENT.test(namespace) || namespace.length > 64) {
    throw new TypeError(`namespace must be a protobuf identifier of at most 64 characters ([A-Za-z_][A-Za-z0-9_]*), got ${JSON.stringify(namespace)}`);
  }
  const pkg = `${namespace}.upgrade.v1beta1`;
  const service = `${pkg}.Query`;
  return {
    namespace,
    package: pkg,
    service,
    restPrefix: `/${namespace}/upgrade/v1beta1/`,
    methodPath: (method) => `/${service}/${method}`,
  };
}
