/**
 * Message execution (the app's msg service router): gov (submit proposal, vote, deposit), bank (send) and
 * the upgrade module's MsgSoftwareUpgrade / MsgCancelUpgrade, for txs and for passed proposals alike. It
 * owns the gov module, whose proposal router is this router restricted to what a proposal may carry.
 */
import type { Any } from "cosmjs-types/google/protobuf/any";
import { MsgDeposit, MsgSubmitProposal, MsgVote } from "cosmjs-types/cosmos/gov/v1/tx";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { UpgradeError } from "../../../core/errors.js";
import type { UpgradeKeeper } from "../../../module/keeper.js";
import { createMsgServer, type MsgServer } from "../../../module/msg-server.js";
import { MSG_CANCEL_UPGRADE_TYPE_URL, MSG_SOFTWARE_UPGRADE_TYPE_URL, decodeMsgCancelUpgrade, decodeMsgSoftwareUpgrade } from "../../../module/msgs.js";
import { isAddress } from "../../../client/address.js";
import { send } from "../modules/bank.js";
import type { Branch, SwitchableStore } from "../shared/branch.js";
import { fromProtoCoins, InvalidCoinsError } from "../modules/coins.js";
import { txErrors } from "../shared/errors.js";
import type { ChainEvent } from "../shared/events.js";
import { GovModule, type BlockInfo, type MsgResult, type ProposalRouter } from "../modules/gov.js";
import { votingValidators } from "../modules/staking.js";
import { MSG_DEPOSIT, MSG_SEND, MSG_SUBMIT_PROPOSAL, MSG_VOTE, authorityOf } from "./tx.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";

export interface MsgRouterOptions {
  /** The keeper of the msg server; its store is `upgradeStore`, switched to the branch a message runs on. */
  keeper: UpgradeKeeper;
  upgradeStore: SwitchableStore;
  logger: Required<Logger>;
}

/** A message of a tx as decodeTx gives it. */
export interface RoutedMsg {
  typeUrl: string;
  value: Uint8Array;
  signer: string;
}

const EMPTY = new Uint8Array(0);

export class MsgRouter {
  readonly gov: GovModule;
  private readonly msgServer: MsgServer;

  constructor(private readonly o: MsgRouterOptions) {
    this.msgServer = createMsgServer(o.keeper);
    this.gov = new GovModule(this.proposalRouter(), votingValidators, o.logger);
  }

  /** Executes one message of a tx on `view`; throws a TxError (or an UpgradeError) when it fails. */
  execute(view: Branch, m: RoutedMsg, info: BlockInfo): MsgResult {
    switch (m.typeUrl) {
      case MSG_SUBMIT_PROPOSAL:
        return this.gov.submitProposal(view, MsgSubmitProposal.decode(m.value), info);
      case MSG_VOTE:
        return this.gov.vote(view, MsgVote.decode(m.value));
      case MSG_DEPOSIT:
        return this.gov.deposit(view, MsgDeposit.decode(m.value), info);
      case MSG_SEND:
        return { data: EMPTY, responseTypeUrl: "/cosmos.bank.v1beta1.MsgSendResponse", events: this.executeSend(view, MsgSend.decode(m.value)) };
      case MSG_SOFTWARE_UPGRADE_TYPE_URL:
      case MSG_CANCEL_UPGRADE_TYPE_URL:
        return { data: EMPTY, responseTypeUrl: `${m.typeUrl}Response`, events: this.executeUpgradeMsg(view, m, info.height) };
      default:
        throw txErrors.unknownRequest(`unrecognized message type: ${m.typeUrl}`);
    }
  }

  private executeSend(view: Branch, msg: MsgSend): ChainEvent[] {
    if (!isAddress(msg.fromAddress)) throw txErrors.invalidAddress(`invalid from address ${JSON.stringify(msg.fromAddress)}`);
    if (!isAddress(msg.toAddress)) throw txErrors.invalidAddress(`invalid to address ${JSON.stringify(msg.toAddress)}`);
    let coins;
    try {
      coins = fromProtoCoins(msg.amount);
    } catch (e) {
      if (e instanceof InvalidCoinsError) throw txErrors.invalidCoins(e.coins);
      throw e;
    }
    if (coins.length === 0) throw txErrors.invalidCoins("");
    return send(view, msg.fromAddress, msg.toAddress, coins);
  }

  /** MsgSoftwareUpgrade / MsgCancelUpgrade through the upgrade msg server, on `view`'s upgrade store. */
  private executeUpgradeMsg(view: Branch, m: { typeUrl: string; value: Uint8Array }, height: bigint): ChainEvent[] {
    const core = this.o.keeper.core;
    return this.o.upgradeStore.withSync(view.store("upgrade"), () => {
      if (m.typeUrl === MSG_SOFTWARE_UPGRADE_TYPE_URL) {
        const msg = decodeMsgSoftwareUpgrade(core, m.value);
        this.msgServer.softwareUpgrade(msg, height);
        this.o.logger.info("upgrade scheduled", { module: "x/upgrade", name: msg.plan.name, height: msg.plan.height, info: msg.plan.info });
      } else {
        this.msgServer.cancelUpgrade(decodeMsgCancelUpgrade(m.value));
        this.o.logger.info("upgrade plan cleared", { module: "x/upgrade" });
      }
      return [];
    });
  }

  /** The gov router: upgrade messages and bank sends (from the gov account). */
  private proposalRouter(): ProposalRouter {
    const routable = new Set([MSG_SOFTWARE_UPGRADE_TYPE_URL, MSG_CANCEL_UPGRADE_TYPE_URL, MSG_SEND]);
    return {
      routable: (typeUrl) => routable.has(typeUrl),
      signer: (msg: Any) => {
        try {
          switch (msg.typeUrl) {
            case MSG_SOFTWARE_UPGRADE_TYPE_URL:
            case MSG_CANCEL_UPGRADE_TYPE_URL:
              return authorityOf(msg.value);
            case MSG_SEND:
              return MsgSend.decode(msg.value).fromAddress;
            case MSG_VOTE:
              return MsgVote.decode(msg.value).voter;
            case MSG_DEPOSIT:
              return MsgDeposit.decode(msg.value).depositor;
            case MSG_SUBMIT_PROPOSAL:
              return MsgSubmitProposal.decode(msg.value).proposer;
            default:
              return undefined;
          }
        } catch (e) {
          throw txErrors.txDecode(`${msg.typeUrl}: ${messageOf(e)}`);
        }
      },
      check: (msg: Any) => {
        try {
          if (msg.typeUrl === MSG_SOFTWARE_UPGRADE_TYPE_URL) decodeMsgSoftwareUpgrade(this.o.keeper.core, msg.value);
          else if (msg.typeUrl === MSG_CANCEL_UPGRADE_TYPE_URL) decodeMsgCancelUpgrade(msg.value);
        } catch (e) {
          // Malformed bytes fail the tx (as the SDK's decoder); a plan that fails validation fails on execution.
          if (e instanceof UpgradeError && e.kind === "malformed-protobuf") throw txErrors.txDecode(`${msg.typeUrl}: ${e.message}`);
        }
      },
      execute: (view, msg, height) => {
        if (msg.typeUrl === MSG_SEND) return this.executeSend(view, MsgSend.decode(msg.value));
        return this.executeUpgradeMsg(view, msg, height);
      },
    };
  }
}

/** The module of a message type URL, for the `message` event (`/cosmos.gov.v1.MsgVote` → `gov`). */
export function moduleOf(typeUrl: string): string {
  return typeUrl.split(".")[1] ?? "";
}
