/**
 * The messages the CLI sends, each built twice from the same values: protobuf (an Any for the TxBody) and
 * the gogo JSON the SDK prints for `--generate-only` (docs/spec/interfaces.md §7.2, §8).
 */
import type { Core } from "../../../core/contract.js";
import { MSG_CANCEL_UPGRADE_TYPE_URL, MSG_SOFTWARE_UPGRADE_TYPE_URL, encodeMsgCancelUpgrade, encodeMsgSoftwareUpgrade } from "../../../module/msgs.js";
import type { Plan, Coin } from "../../../core/types.js";
import type { JsonValue } from "../yaml.js";
import { TYPE_URL, type AnyMsg, encodeMsgSend, encodeMsgSubmitProposal, encodeMsgVote } from "./proto.js";

export interface Msg {
  any: AnyMsg;
  json: { [key: string]: JsonValue };
}

const ZERO_TIME = "0001-01-01T00:00:00Z";

export function softwareUpgradeMsg(core: Core, authority: string, plan: Plan): Msg {
  return {
    // core.encodePlan writes the zero time (cosmjs-types' Plan.fromPartial would write 1970-01-01).
    any: { typeUrl: MSG_SOFTWARE_UPGRADE_TYPE_URL, value: encodeMsgSoftwareUpgrade(core, { authority, plan }) },
    json: {
      "@type": MSG_SOFTWARE_UPGRADE_TYPE_URL,
      authority,
      plan: { name: plan.name, time: ZERO_TIME, height: plan.height.toString(), info: plan.info, upgraded_client_state: null },
    },
  };
}

export function cancelUpgradeMsg(authority: string): Msg {
  return {
    any: { typeUrl: MSG_CANCEL_UPGRADE_TYPE_URL, value: encodeMsgCancelUpgrade({ authority }) },
    json: { "@type": MSG_CANCEL_UPGRADE_TYPE_URL, authority },
  };
}

export interface ProposalFields {
  initialDeposit: Coin[];
  proposer: string;
  metadata: string;
  title: string;
  summary: string;
}

export function submitProposalMsg(inner: Msg[], f: ProposalFields): Msg {
  return {
    any: {
      typeUrl: TYPE_URL.submitProposal,
      value: encodeMsgSubmitProposal({ messages: inner.map((m) => m.any), ...f, expedited: false }),
    },
    json: {
      "@type": TYPE_URL.submitProposal,
      messages: inner.map((m) => m.json),
      initial_deposit: f.initialDeposit.map((c) => ({ denom: c.denom, amount: c.amount })),
      proposer: f.proposer,
      metadata: f.metadata,
      title: f.title,
      summary: f.summary,
      expedited: false,
    },
  };
}

export const VOTE_OPTIONS: Record<string, { value: number; name: string }> = {
  yes: { value: 1, name: "VOTE_OPTION_YES" },
  abstain: { value: 2, name: "VOTE_OPTION_ABSTAIN" },
  no: { value: 3, name: "VOTE_OPTION_NO" },
  no_with_veto: { value: 4, name: "VOTE_OPTION_NO_WITH_VETO" },
};

export function voteMsg(proposalId: bigint, voter: string, option: { value: number; name: string }, metadata: string): Msg {
  return {
    any: { typeUrl: TYPE_URL.vote, value: encodeMsgVote({ proposalId, voter, option: option.value, metadata }) },
    json: { "@type": TYPE_URL.vote, proposal_id: proposalId.toString(), voter, option: option.name, metadata },
  };
}

/** bank MsgSend: `amount` sorted by denom, no zero amounts (as ParseCoinsNormalized leaves it). */
export function sendMsg(fromAddress: string, toAddress: string, amount: Coin[]): Msg {
  return {
    any: { typeUrl: TYPE_URL.send, value: encodeMsgSend({ fromAddress, toAddress, amount }) },
    json: { "@type": TYPE_URL.send, from_address: fromAddress, to_address: toAddress, amount: amount.map((c) => ({ denom: c.denom, amount: c.amount })) },
  };
}

/** The unsigned transaction as `--generate-only` prints it (one compact line). */
export function unsignedTxJson(msgs: Msg[], memo: string, fee: { amount: Coin[]; gasLimit: bigint }): JsonValue {
  return {
    body: {
      messages: msgs.map((m) => m.json),
      memo,
      timeout_height: "0",
      extension_options: [],
      non_critical_extension_options: [],
    },
    auth_info: {
      signer_infos: [],
      fee: { amount: fee.amount.map((c) => ({ denom: c.denom, amount: c.amount })), gas_limit: fee.gasLimit.toString(), payer: "", granter: "" },
      tip: null,
    },
    signatures: [],
  };
}
