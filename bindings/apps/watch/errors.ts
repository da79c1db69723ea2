/** The watch's own failures a user can hit: a config that cannot be followed, a state file that cannot be read. */

/** The config file (or a chain-registry file it names) says something the watch cannot follow; every problem at once. */
export class WatchConfigError extends Error {
  override name = "WatchConfigError";
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0] : `the watch config has ${problems.length} problems:\n  ${problems.join("\n  ")}`);
  }
}

/** The state file exists but is not the watch's state (it is left as it is: the watch refuses to start over it). */
export class WatchStateError extends Error {
  override name = "WatchStateError";
}
