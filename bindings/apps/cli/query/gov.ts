/** `xupgrade query gov proposal <id>` (abci_query of /cosmos.gov.v1.Query/Proposal), and the gov params reader of the tx checks. */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Command } from "commander";
import { proposalStatusToJSON, type Params, type Proposal } from "cosmjs-types/cosmos/gov/v1/gov";
import { QueryParamsResponse, QueryProposalResponse } from "cosmjs-types/cosmos/gov/v1/query";
import { abciQuery, decodeWith } from "../../../client/abci.js";
import { CliError } from "../errors.js";
import { Context } from "../context.js";
import { expectArgs, type QueryOpts, integerValue } from "../flags.js";
import { print } from "../output.js";
import type { CometRpc } from "../../../client/rpc.js";
import type { JsonValue } from "../yaml.js";
import { coinsJson, timestampJson } from "./json.js";
import { anyMessageJson } from "./messages.js";
import { UINT64 } from "../../../go/option.js";

/** A proposal id argument: uint64. */
export function parseProposalId(text: string): bigint {
  return integerValue("proposal id", text, UINT64);
}

export function proposalJson(p: Proposal): JsonValue {
  const t = p.finalTallyResult;
  return {
    id: p.id.toString(),
    messages: p.messages.map(anyMessageJson),
    status: proposalStatusToJSON(p.status),
    final_tally_result: t ? { yes_count: t.yesCount, abstain_count: t.abstainCount, no_count: t.noCount, no_with_veto_count: t.noWithVetoCount } : null,
    submit_time: timestampJson(p.submitTime),
    deposit_end_time: timestampJson(p.depositEndTime),
    total_deposit: coinsJson(p.totalDeposit),
    voting_start_time: timestampJson(p.votingStartTime),
    voting_end_time: timestampJson(p.votingEndTime),
    metadata: p.metadata,
    title: p.title,
    summary: p.summary,
    proposer: p.proposer,
    expedited: p.expedited,
    failed_reason: p.failedReason,
  };
}

/** gov v1 Params (`params_type ""`), or the reason they are unavailable. */
export async function queryGovParams(rpc: CometRpc): Promise<Params> {
  const path = "/cosmos.gov.v1.Query/Params";
  const { value } = await abciQuery(rpc, path, new Uint8Array(0));
  const params = decodeWith(rpc, path, (b) => QueryParamsResponse.decode(b), value).params;
  if (!params) throw new CliError("the node returned no gov params");
  return params;
}

export async function proposal(opts: QueryOpts, cmd: Command): Promise<void> {
  const [idText] = expectArgs(cmd, 1, 1);
  const id = parseProposalId(idText);
  const ctx = new Context(opts);
  const rpc = ctx.rpc();
  const path = "/cosmos.gov.v1.Query/Proposal";
  const req = new BinaryWriter();
  if (id !== 0n) req.tag(1, WireType.Varint).uint64(id);
  const { value } = await abciQuery(rpc, path, req.finish(), ctx.height);
  const proposal = decodeWith(rpc, path, (b) => QueryProposalResponse.decode(b), value).proposal;
  if (!proposal) throw new CliError(`proposal ${id} doesn't exist`);
  print({ proposal: proposalJson(proposal) }, ctx.output);
}
