/**
 * Upgrade readiness through the devnet's ABCI++ application, driven in this process the way CometBFT drives
 * it (docs/spec/readiness.md §6): four validators of one `initTestnet` genesis; at each height every
 * validator extends its precommit from its own `upgrade-readiness.json` and the others verify the extension,
 * the extension is signed with the validator's key as CometBFT signs it, the next proposer injects the
 * extended commit, every validator checks the proposal and finalizes it. The real network (CometBFT's own
 * signatures, gossip and late precommits) is test/e2e/cometbft/readiness.test.ts.
 *
 * Attacks: each forged injection is refused by ProcessProposal with its own check, each malformed or oversized
 * extension by VerifyVoteExtension; the proposer prunes a malformed extension that reached it; a validator's
 * attestation is withdrawn only by its own signed vote. And the optional activation gate.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fromBase64 } from "@cosmjs/encoding";
import { sha256 } from "@cosmjs/crypto";
import {
  ExtendedCommitInfo,
  RequestFinalizeBlock,
  RequestInitChain,
  RequestPrepareProposal,
  RequestProcessProposal,
  type CommitInfo,
  type ExtendedVoteInfo,
} from "cosmjs-types/tendermint/abci/types";
import { BlockIDFlag } from "cosmjs-types/tendermint/types/validator";
import { afterAll, describe, expect, it } from "vitest";
import { CometApp, initTestnet, loadApp, openNode, readGenesisKeys, type GenesisKey, type OpenedNode } from "../../../bindings/apps/devnet/index.js";
import { consensusKeyFromSeed, signEd25519, type ConsensusKey } from "../../../bindings/apps/devnet/chain/keys.js";
import { INJECTION_PREFIX } from "../../../bindings/apps/devnet/node/engine/cometbft/vote-extensions.js";
import { startNodeQueries } from "../../../bindings/apps/devnet/node/queries.js";
import { voteExtensionSignBytes } from "../../../bindings/light/encoding.js";
import { ReadinessFileReader, readinessFilePath, writeReadinessFile } from "../../../bindings/module/readiness/file.js";
import {
  MAX_VOTE_EXTENSION_BYTES,
  READINESS_QUERY_PATH,
  attestationToJson,
  decodeReadinessResponse,
  encodeReadinessRequest,
  encodeVoteExtension,
  type ReadinessAttestation,
  type ReadinessTally,
} from "../../../bindings/module/readiness/index.js";
import type { QueryServers } from "../../../bindings/services/serve.js";
import { V1, captureLogger, removeTempDirs, signTx, softwareUpgradeAny, submitProposalAny, tempDir, voteAny } from "./helpers.js";

const servers: QueryServers[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close(0)));
  removeTempDirs();
});

interface Genesis {
  genesis_time: string;
  chain_id: string;
  validators: { address: string; pub_key: { value: string }; power: string }[];
  app_state: unknown;
}

interface Node extends OpenedNode {
  app: CometApp;
  logger: ReturnType<typeof captureLogger>;
  home: string;
  key: ConsensusKey;
}

const ACCEPT = 1;
const REJECT = 2;
const COMMIT = BlockIDFlag.BLOCK_ID_FLAG_COMMIT;
const ABSENT = BlockIDFlag.BLOCK_ID_FLAG_ABSENT;
const seconds = (iso: string) => BigInt(Math.floor(Date.parse(iso) / 1000));
const hex = (u: Uint8Array | undefined) => Buffer.from(u ?? []).toString("hex");

async function open(home: string): Promise<Node> {
  const genesis = JSON.parse(readFileSync(join(home, "config", "genesis.json"), "utf8")) as Genesis;
  const logger = captureLogger(home.slice(-6));
  const node = await openNode({ home, chainId: genesis.chain_id, app: await loadApp(V1), backend: "wasm", skipUpgradeHeights: [], logger });
  const queries = await startNodeQueries({
    state: node.state,
    ms: node.ms,
    queryKeeper: node.queryKeeper,
    keeperAt: node.keeperAt,
    blocks: { height: () => node.state.height, block: () => undefined },
    rest: "127.0.0.1:0",
    grpc: "127.0.0.1:0",
    rpcUrl: () => "",
    engine: "cometbft",
  });
  servers.push(queries);
  const app = new CometApp({
    state: node.state,
    queries: () => queries.abci,
    logger,
    plan: () => node.queryKeeper.getUpgradePlan(),
    readiness: new ReadinessFileReader(readinessFilePath(home)),
  });
  const pv = JSON.parse(readFileSync(join(home, "config", "priv_validator_key.json"), "utf8")) as { priv_key: { value: string } };
  const key = consensusKeyFromSeed(fromBase64(pv.priv_key.value).subarray(0, 32));
  return { ...node, app, logger, home, key };
}

function attestation(over: Partial<ReadinessAttestation> = {}): ReadinessAttestation {
  return {
    planName: "v2",
    planHeight: 60n,
    platform: "linux/amd64",
    binarySha256: new Uint8Array(32).fill(0xaa),
    preflightOk: true,
    rehearsal: "passed",
    rehearsalExitCode: 0,
    appHash: new Uint8Array(32).fill(0x11),
    snapshotHeight: 12n,
    binaryVersion: "example-v2 2.0.0",
    ...over,
  };
}

/** A testnet of four validators run as CometBFT would run them, one height at a time. */
class Net {
  nodes: Node[] = [];
  g!: Genesis;
  keys: GenesisKey[] = [];
  /** The precommits of the last height: what the next proposer's PrepareProposal receives. */
  last: ExtendedVoteInfo[] = [];
  lastRound = 0;
  /** FinalizeBlock's answers at the last height. */
  results: Awaited<ReturnType<CometApp["finalizeBlock"]>>[] = [];

  async init(o: { threshold?: string } = {}): Promise<void> {
    const dir = tempDir("xupgrade-readiness-abci-");
    await initTestnet({ home: dir, validators: 4, votingPeriod: "4s", depositPeriod: "4s", readinessActivationThreshold: o.threshold });
    this.g = JSON.parse(readFileSync(join(dir, "node0", "config", "genesis.json"), "utf8")) as Genesis;
    this.keys = (await readGenesisKeys(dir)).keys;
    this.nodes = await Promise.all([0, 1, 2, 3].map((i) => open(join(dir, `node${i}`))));
    const req = RequestInitChain.fromPartial({
      time: { seconds: seconds(this.g.genesis_time), nanos: 0 },
      chainId: this.g.chain_id,
      validators: this.g.validators.map((v) => ({ pubKey: { ed25519: fromBase64(v.pub_key.value) }, power: BigInt(v.power) })),
      appStateBytes: new TextEncoder().encode(JSON.stringify(this.g.app_state)),
      initialHeight: 1n,
      consensusParams: {
        abci: {
          voteExtensionsEnableHeight: BigInt(
            (
              JSON.parse(readFileSync(join(dir, "node0", "config", "genesis.json"), "utf8")) as {
                consensus_params: { abci: { vote_extensions_enable_height: string } };
              }
            ).consensus_params.abci.vote_extensions_enable_height,
          ),
        },
      },
    });
    const hashes = await Promise.all(this.nodes.map((n) => n.app.initChain(req)));
    expect(new Set(hashes.map((r) => hex(r.appHash))).size).toBe(1);
  }

  /** CometBFT's validator order: power, then address (equal powers here). */
  get order(): Node[] {
    return [...this.nodes].sort((a, b) => Buffer.compare(Buffer.from(a.key.address), Buffer.from(b.key.address)));
  }

  get height(): bigint {
    return this.nodes[0].state.height;
  }

  proposer(h: bigint): Node {
    return this.order[Number(h % 4n)];
  }

  time(h: bigint) {
    return { seconds: seconds(this.g.genesis_time) + h, nanos: 0 };
  }

  localLastCommit(): ExtendedCommitInfo {
    return { round: this.lastRound, votes: this.last };
  }

  lastCommit(from: ExtendedCommitInfo = this.localLastCommit()): CommitInfo {
    return { round: from.round, votes: from.votes.map((v) => ({ validator: v.validator, blockIdFlag: v.blockIdFlag })) };
  }

  prepare(h: bigint, txs: Uint8Array[] = [], local = this.localLastCommit()): Uint8Array[] {
    return this.proposer(h).app.prepareProposal(
      RequestPrepareProposal.fromPartial({ height: h, maxTxBytes: 1_000_000n, txs, localLastCommit: local, time: this.time(h) }),
    ).txs;
  }

  /** ProcessProposal on one validator: ACCEPT or REJECT, and the check it logged. */
  async process(n: Node, h: bigint, txs: Uint8Array[], last = this.lastCommit()): Promise<{ status: number; check?: string }> {
    const before = n.logger.records.length;
    const r = await n.app.processProposal(
      RequestProcessProposal.fromPartial({ height: h, txs, proposedLastCommit: last, time: this.time(h), proposerAddress: this.proposer(h).key.address }),
    );
    const rec = n.logger.records.slice(before).find((x) => x.msg.startsWith("rejected a proposal"));
    return { status: r.status, check: rec?.check as string | undefined };
  }

  /** One height: propose, process everywhere, finalize and commit everywhere, then every validator's precommit. */
  async step(txs: Uint8Array[] = [], o: { absent?: number[] } = {}): Promise<string> {
    const h = this.height + 1n;
    const block = this.prepare(h, txs);
    for (const n of this.nodes) expect((await this.process(n, h, block)).status).toBe(ACCEPT);
    const req = RequestFinalizeBlock.fromPartial({
      height: h,
      txs: block,
      decidedLastCommit: this.lastCommit(),
      time: this.time(h),
      hash: sha256(new TextEncoder().encode(`block ${h}`)),
    });
    const results = await Promise.all(this.nodes.map((n) => n.app.finalizeBlock(req)));
    expect(new Set(results.map((r) => hex(r.appHash as Uint8Array))).size).toBe(1);
    this.results = results;
    for (const n of this.nodes) await n.app.commit();
    // The precommits of h: each validator extends its vote, signs the extension, the others verify it.
    const votes: ExtendedVoteInfo[] = [];
    for (const n of this.order) {
      const validator = { address: n.key.address, power: 100n };
      if (o.absent?.includes(this.nodes.indexOf(n))) {
        votes.push({ validator, voteExtension: new Uint8Array(0), extensionSignature: new Uint8Array(0), blockIdFlag: ABSENT });
        continue;
      }
      const ext = (
        await n.app.extendVote({
          hash: new Uint8Array(32),
          height: h,
          time: this.time(h),
          txs: [],
          proposedLastCommit: { round: 0, votes: [] },
          misbehavior: [],
          nextValidatorsHash: new Uint8Array(32),
          proposerAddress: new Uint8Array(20),
        })
      ).voteExtension;
      for (const other of this.nodes) {
        if (other === n) continue;
        expect(other.app.verifyVoteExtension({ hash: new Uint8Array(32), validatorAddress: n.key.address, height: h, voteExtension: ext }).status).toBe(ACCEPT);
      }
      votes.push({ validator, voteExtension: ext, extensionSignature: this.sign(n, h, 0, ext), blockIdFlag: COMMIT });
    }
    this.last = votes;
    this.lastRound = 0;
    return hex(results[0].appHash);
  }

  sign(n: Node, h: bigint, round: number, ext: Uint8Array, chainId = this.g.chain_id): Uint8Array {
    return signEd25519(n.key, voteExtensionSignBytes(chainId, h, round, ext));
  }

  /** The readiness query, through each node's ABCI query router. */
  tallies(): (ReadinessTally | undefined)[] {
    return this.nodes.map((n) => {
      const r = n.app.query({ path: READINESS_QUERY_PATH, data: encodeReadinessRequest({ name: "", height: 0n }), height: 0n, prove: false });
      expect(r.code).toBe(0);
      return decodeReadinessResponse(r.value as Uint8Array).tally;
    });
  }

  async attest(i: number, a: ReadinessAttestation | undefined): Promise<void> {
    if (a === undefined) rmSync(readinessFilePath(this.nodes[i].home), { force: true });
    else await writeReadinessFile(this.nodes[i].home, attestationToJson(a));
  }

  async schedule(height: bigint): Promise<void> {
    const key = (name: string) => this.keys.find((k) => k.name === name)!;
    const alice = key("alice");
    const proposal = await signTx({} as never, alice, [submitProposalAny(alice.address, [softwareUpgradeAny("v2", height)])], {
      accountNumber: BigInt(alice.account_number),
      sequence: 0n,
    });
    await this.step([proposal]);
    const votes = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        signTx({} as never, key(`validator${i}`), [voteAny(1n, key(`validator${i}`).address)], {
          accountNumber: BigInt(key(`validator${i}`).account_number),
          sequence: 0n,
        }),
      ),
    );
    await this.step(votes);
    while (!this.nodes[0].queryKeeper.getUpgradePlan()) await this.step();
  }
}

const statuses = (t: ReadinessTally | undefined) => t?.validators.map((v) => v.status).sort();

describe("upgrade readiness through the ABCI++ application (in process)", { timeout: 120_000 }, () => {
  const net = new Net();

  it("attestations ride every precommit into the next block, and every validator keeps the same tally", async () => {
    await net.init();
    await net.step(); // height 1: its precommits are the first with extensions
    expect(net.nodes[0].state.readinessParams().voteExtensionsEnableHeight).toBe(1n);
    await net.step(); // height 2 carries them
    expect(net.prepare(3n)[0].subarray(0, INJECTION_PREFIX.length)).toEqual(INJECTION_PREFIX);
    expect(net.tallies()).toEqual([undefined, undefined, undefined, undefined]); // no plan yet
    await net.schedule(60n);
    // Scheduled, nothing attested: every validator says 0 %.
    await net.step();
    const zero = net.tallies();
    expect(zero[0]).toMatchObject({ planName: "v2", planHeight: 60n, totalPower: 400n, readyPower: 0n, noAttestationPower: 400n });

    await net.attest(0, attestation());
    await net.attest(1, attestation());
    await net.attest(2, attestation({ rehearsal: "failed", rehearsalExitCode: 23, appHash: new Uint8Array(0) }));
    await net.step(); // the precommits of this height carry the files…
    const attestedAt = net.height + 1n;
    await net.step(); // …and the next block puts them in the state
    const t = net.tallies();
    for (const x of t) expect(x).toEqual(t[0]);
    expect(t[0]).toMatchObject({ readyPower: 200n, failedPower: 100n, noAttestationPower: 100n, updatedHeight: attestedAt, appHashesDisagree: false });
    expect(statuses(t[0])).toEqual(["failed", "no_attestation", "ready", "ready"]);
    expect(t[0]!.validators.find((v) => v.status === "ready")!.attestedHeight).toBe(attestedAt);

    // A fourth validator whose rehearsal reached another app hash: a second group at the same snapshot height.
    await net.attest(3, attestation({ appHash: new Uint8Array(32).fill(0x22) }));
    await net.step();
    await net.step();
    const split = net.tallies()[0]!;
    expect(split.readyPower).toBe(300n);
    expect(split.appHashGroups.map((g) => g.power)).toEqual([200n, 100n]);
    expect(split.appHashesDisagree).toBe(true);
    // The same attestation again changes nothing: the tally keeps its bytes and its updated height.
    const updated = split.updatedHeight;
    await net.step();
    expect(net.tallies()[0]!.updatedHeight).toBe(updated);
  });

  it("an absent vote keeps a validator's attestation; its own signed vote without one withdraws it", async () => {
    await net.attest(3, undefined);
    await net.step([], { absent: [3] }); // node3's precommit is missing: nothing learnt about it
    await net.step();
    const kept = net.tallies()[0]!;
    expect(kept.readyPower).toBe(300n);
    await net.step(); // now node3 votes, with an empty extension (no file)
    await net.step();
    const after = net.tallies()[0]!;
    expect(after.readyPower).toBe(200n);
    expect(after.noAttestationPower).toBe(100n);
    expect(after.appHashesDisagree).toBe(false);
  });

  it("a readiness file for another plan, or an unusable one, attaches nothing (and says so once)", async () => {
    const n = net.nodes[3];
    await net.attest(3, attestation({ planName: "v3" }));
    await net.step();
    expect(n.logger.records.some((r) => typeof r.msg === "string" && r.msg.includes('attests "v3" at 60, the scheduled plan is "v2" at 60'))).toBe(true);
    await writeReadinessFile(n.home, { ...attestationToJson(attestation()), format: "other/9" } as never);
    await net.step();
    expect(n.logger.records.some((r) => typeof r.msg === "string" && r.msg.includes("is not usable") && r.msg.includes('format is "other/9"'))).toBe(true);
    await net.attest(3, undefined);
  });

  it("VerifyVoteExtension refuses malformed and oversized extensions (the vote, not the chain) and accepts well-formed ones", async () => {
    const n = net.nodes[0];
    const verify = (ext: Uint8Array) =>
      n.app.verifyVoteExtension({ hash: new Uint8Array(32), validatorAddress: net.nodes[1].key.address, height: net.height, voteExtension: ext }).status;
    expect(verify(new Uint8Array(0))).toBe(ACCEPT);
    expect(verify(encodeVoteExtension(attestation()))).toBe(ACCEPT);
    expect(verify(encodeVoteExtension(attestation({ planName: "another plan" })))).toBe(ACCEPT); // shape only: another plan is not malformed
    expect(verify(new Uint8Array(MAX_VOTE_EXTENSION_BYTES + 1).fill(7))).toBe(REJECT);
    expect(verify(Uint8Array.of(0x0a, 0x05, 1, 2))).toBe(REJECT);
    expect(verify(encodeVoteExtension(attestation({ binarySha256: new Uint8Array(5) })))).toBe(REJECT);
    expect(verify(new TextEncoder().encode("not protobuf at all"))).toBe(REJECT);
    const logged = n.logger.records.filter((r) => r.msg === "refused a vote extension");
    expect(logged.length).toBeGreaterThanOrEqual(4);
    // The chain goes on.
    await net.step();
  });

  it("ProcessProposal refuses each forged injection with its own check; FinalizeBlock ignores one that gets through", async () => {
    const h = net.height + 1n;
    const good = net.prepare(h);
    const n = net.nodes[1];
    expect((await net.process(n, h, good)).status).toBe(ACCEPT);
    const body = ExtendedCommitInfo.decode(good[0].subarray(INJECTION_PREFIX.length));
    const inject = (e: ExtendedCommitInfo) => Uint8Array.from([...INJECTION_PREFIX, ...ExtendedCommitInfo.encode(e).finish()]);
    // Forge on a vote that carries an attestation.
    const at = body.votes.findIndex((v) => v.voteExtension.length > 0);
    expect(at).toBeGreaterThanOrEqual(0);
    const edit = (i: number, f: (v: ExtendedVoteInfo) => ExtendedVoteInfo) => ({
      ...body,
      votes: body.votes.map((v, j) => (j === (i === 0 ? at : i) ? f({ ...v }) : v)),
    });
    const signer = (i: number) => net.nodes.find((x) => hex(x.key.address) === hex(body.votes[i === 0 ? at : i].validator.address))!;
    const other = attestation({ appHash: new Uint8Array(32).fill(0x99) });
    const forged = encodeVoteExtension(other);
    const unknownKey = consensusKeyFromSeed(new Uint8Array(32).fill(9));
    const unknownVote: ExtendedVoteInfo = {
      validator: { address: unknownKey.address, power: 100n },
      blockIdFlag: COMMIT,
      voteExtension: forged,
      extensionSignature: signEd25519(unknownKey, voteExtensionSignBytes(net.g.chain_id, h - 1n, 0, forged)),
    };
    const withUnknown = { ...body, votes: [...body.votes.slice(0, 3), unknownVote] };
    const malformed = Uint8Array.of(0x0a, 0x01, 0xff);
    const cases: [string, Uint8Array[], CommitInfo | undefined, string][] = [
      ["no injected votes", good.slice(1), undefined, "missing"],
      ["the votes second", [Uint8Array.of(1), good[0]], undefined, "missing"],
      ["the votes twice", [good[0], good[0]], undefined, "unexpected"],
      ["undecodable votes", [Uint8Array.from([...INJECTION_PREFIX, 0xff, 0xff])], undefined, "malformed"],
      ["another round", [inject({ ...body, round: 1 })], undefined, "round"],
      ["a vote left out", [inject({ ...body, votes: body.votes.slice(1) })], undefined, "votes"],
      ["validators swapped", [inject({ ...body, votes: [body.votes[1], body.votes[0], ...body.votes.slice(2)] })], undefined, "validator"],
      ["more power claimed", [inject(edit(0, (v) => ({ ...v, validator: { ...v.validator, power: 900n } })))], undefined, "validator"],
      [
        "a commit vote called absent",
        [inject(edit(0, (v) => ({ ...v, blockIdFlag: ABSENT, voteExtension: new Uint8Array(0), extensionSignature: new Uint8Array(0) })))],
        undefined,
        "flag",
      ],
      [
        "an extension on an absent vote",
        [inject({ ...body, votes: body.votes.map((v, j) => (j === at ? { ...v, blockIdFlag: ABSENT } : v)) })],
        { ...net.lastCommit(body), votes: net.lastCommit(body).votes.map((v, j) => (j === at ? { ...v, blockIdFlag: ABSENT } : v)) },
        "extension-without-commit",
      ],
      ["an extension without its signature", [inject(edit(0, (v) => ({ ...v, extensionSignature: new Uint8Array(0) })))], undefined, "unsigned-extension"],
      ["a validator the state does not know", [inject(withUnknown)], net.lastCommit(withUnknown), "unknown-validator"],
      [
        "another validator's attestation under a signature that is not its",
        [inject(edit(0, (v) => ({ ...v, voteExtension: forged })))],
        undefined,
        "signature",
      ],
      [
        "a signature over another height",
        [inject(edit(0, (v) => ({ ...v, voteExtension: forged, extensionSignature: net.sign(signer(0), h, 0, forged) })))],
        undefined,
        "signature",
      ],
      [
        "a signature for another chain",
        [inject(edit(0, (v) => ({ ...v, voteExtension: forged, extensionSignature: net.sign(signer(0), h - 1n, 0, forged, "other-chain") })))],
        undefined,
        "signature",
      ],
      [
        "a flipped signature byte",
        [inject(edit(0, (v) => ({ ...v, extensionSignature: v.extensionSignature.map((b, k) => (k === 5 ? b ^ 1 : b)) })))],
        undefined,
        "signature",
      ],
      [
        "a malformed extension, validly signed",
        [inject(edit(0, (v) => ({ ...v, voteExtension: malformed, extensionSignature: net.sign(signer(0), h - 1n, 0, malformed) })))],
        undefined,
        "shape",
      ],
    ];
    for (const [what, txs, last, check] of cases) expect([what, await net.process(n, h, txs, last)]).toEqual([what, { status: REJECT, check }]);
    // An injection before vote extensions carry anything (height 1) is refused as unexpected.
    expect((await net.process(n, 1n, [good[0]], { round: 0, votes: [] })).check).toBe("unexpected");
    // A user cannot put one in the mempool.
    expect(n.app.checkTx({ tx: good[0], type: 0 })).toMatchObject({ code: 2, codespace: "sdk" });

    // FinalizeBlock (CometBFT's replay runs no ProcessProposal) checks again: forged votes tell the tally nothing.
    const before = net.tallies()[0]!;
    const forgedBlock = [inject(edit(0, (v) => ({ ...v, voteExtension: forged })))];
    const req = RequestFinalizeBlock.fromPartial({
      height: h,
      txs: forgedBlock,
      decidedLastCommit: net.lastCommit(),
      time: net.time(h),
      hash: new Uint8Array(32),
    });
    const results = await Promise.all(net.nodes.map((x) => x.app.finalizeBlock(req)));
    expect(results.map((r) => r.txResults?.[0]?.code)).toEqual([1, 1, 1, 1]);
    expect(new Set(results.map((r) => hex(r.appHash as Uint8Array))).size).toBe(1);
    for (const x of net.nodes) x.state.abandon(); // not committed: the real block comes next
    await net.step();
    expect(net.tallies()[0]!.validators.map((v) => v.status)).toEqual(before.validators.map((v) => v.status));
  });

  it("the proposer prunes a malformed extension that reached it as a late precommit; the block is accepted and the tally keeps the validator's attestation", async () => {
    const h = net.height + 1n;
    const i = net.last.findIndex((v) => v.voteExtension.length > 0);
    const n = net.nodes.find((x) => hex(x.key.address) === hex(net.last[i].validator.address))!;
    const bad = Uint8Array.of(0x0a, 0x01, 0xff);
    const local = { round: 0, votes: net.last.map((v, j) => (j === i ? { ...v, voteExtension: bad, extensionSignature: net.sign(n, h - 1n, 0, bad) } : v)) };
    const block = net.prepare(h, [], local);
    expect(net.proposer(h).logger.records.some((r) => r.msg.startsWith("pruned vote extensions") && r.pruned === 1)).toBe(true);
    const pruned = ExtendedCommitInfo.decode(block[0].subarray(INJECTION_PREFIX.length)).votes[i];
    expect([pruned.blockIdFlag, pruned.voteExtension.length, pruned.extensionSignature.length]).toEqual([COMMIT, 0, 0]);
    for (const x of net.nodes) expect((await net.process(x, h, block)).status).toBe(ACCEPT);
    const ready = net.tallies()[0]!.readyPower;
    const req = RequestFinalizeBlock.fromPartial({
      height: h,
      txs: block,
      decidedLastCommit: net.lastCommit(local),
      time: net.time(h),
      hash: new Uint8Array(32),
    });
    await Promise.all(net.nodes.map((x) => x.app.finalizeBlock(req)));
    for (const x of net.nodes) await x.app.commit();
    expect(net.tallies()[0]!.readyPower).toBe(ready);
  });
});

describe("the readiness activation gate (devnet setting, off by default)", { timeout: 120_000 }, () => {
  it("clears a plan whose ready power is below the threshold at its height: the nodes log it, emit an event, and the chain goes on", async () => {
    const net = new Net();
    await net.init({ threshold: "0.67" });
    await net.step();
    expect(net.nodes[0].state.readinessParams().activationThreshold).toBe("0.67");
    await net.schedule(net.height + 14n);
    const H = net.nodes[0].queryKeeper.getUpgradePlan()!.height;
    expect(H - net.height).toBeGreaterThan(3n); // room for the precommits and the block that carries them
    await net.attest(0, attestation({ planHeight: H }));
    await net.attest(1, attestation({ planHeight: H }));
    while (net.height < H - 1n) await net.step();
    expect(net.tallies()[0]).toMatchObject({ readyPower: 200n, totalPower: 400n });
    // v1 has no handler for v2: without the gate it would halt here with 20.
    await net.step();
    expect(net.height).toBe(H);
    expect(net.nodes[0].queryKeeper.getUpgradePlan()).toBeUndefined();
    for (const r of net.results) {
      expect(r.events?.find((e) => e?.type === "upgrade_not_activated")?.attributes?.map((a) => [a?.key, a?.value])).toEqual([
        ["name", "v2"],
        ["height", H.toString()],
        ["ready_power", "200"],
        ["total_power", "400"],
        ["threshold", "0.67"],
      ]);
    }
    for (const n of net.nodes) {
      expect(n.logger.records.find((r) => r.level === "warn" && String(r.msg).startsWith(`upgrade "v2" not activated at height ${H}`))?.msg).toContain(
        "readiness 0.500000000000000000 of the power (200 of 400) is below the activation threshold 0.67",
      );
    }
    await net.step();
  });

  it("lets a plan with enough ready power activate (v1 then halts with 20 as without the gate)", async () => {
    const net = new Net();
    await net.init({ threshold: "0.67" });
    await net.step();
    await net.schedule(net.height + 14n);
    const H = net.nodes[0].queryKeeper.getUpgradePlan()!.height;
    expect(H - net.height).toBeGreaterThan(3n);
    for (const i of [0, 1, 2]) await net.attest(i, attestation({ planHeight: H }));
    while (net.height < H - 1n) await net.step();
    expect(net.tallies()[0]!.readyPower).toBe(300n);
    const h = H;
    const block = net.prepare(h);
    const req = RequestFinalizeBlock.fromPartial({ height: h, txs: block, decidedLastCommit: net.lastCommit(), time: net.time(h), hash: new Uint8Array(32) });
    await expect(net.nodes[0].app.finalizeBlock(req)).rejects.toMatchObject({ exitCode: 20 });
  });
});
