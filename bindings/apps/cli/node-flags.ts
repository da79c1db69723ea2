/**
 * The V8 flags the package's bin starts Node with, by command: scripts/build-cli.mjs writes them into the
 * bin's launcher lines, and `npm run bench:peers` starts its xupgrade query server with the devnet's, so the
 * bench measures the process users run. Every other command runs with Node's defaults.
 */
export const NODE_FLAGS = {
  /**
   * The sidecar stays up beside the node for months and its work is I/O (streams, native hashing and
   * inflating): V8's optimizing compiler buys it little, and with both flags the process holds ~4 MiB less at
   * rest and a download's spent chunks are collected soon instead of piling up (bench/README.md, "The
   * sidecar's memory").
   */
  visor: ["--no-opt", "--optimize-for-size"],
  /**
   * A devnet node serves gRPC, REST and CometBFT's ABCI connection from one process for hours. V8's
   * allocation-site pretenuring sees the long-lived objects of a burst of connections (every object from one
   * literal surviving) and from then on allocates that literal's objects in the old generation — also the ones
   * each query makes and drops, which then keep their young neighbours alive through scavenges. After a minute
   * of REST load, gRPC calls filled the old generation ~3× faster and a mark-compact of 9–20 ms came every
   * ~0.6 s; p99 at 16 calls in flight 6.8–8.1 ms with pretenuring, 3.4–4.0 ms without, requests/s the same or
   * higher (bench/README.md, "The gRPC tail").
   */
  devnet: ["--no-allocation-site-pretenuring"],
} as const;
