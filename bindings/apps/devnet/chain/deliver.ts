/**
 * A tx in a block (DeliverTx) and its simulation: the ante handler on a branch of the block, then the
 * messages on another, each written to the block only if it succeeded — a failed message keeps the fee
 * and the sequence increment, as in the SDK. Results are in CometBFT 0.38's JSON shape.
 */
import type { Any } from "cosmjs-types/google/protobuf/any";
import { TxMsgData } from "cosmjs-types/cosmos/base/abci/v1beta1/abci";
import type { TxResultJson } from "./blocks.js";
import type { Branch } from "../shared/branch.js";
import { TxError, toTxError, txErrors } from "../shared/errors.js";
import { eventJson, type ChainEvent } from "../shared/events.js";
import type { BlockInfo, MsgResult } from "../modules/gov.js";
import { moduleOf, type MsgRouter } from "./router.js";
import { decodeTx, messageGas, runAnte, type DecodedTx } from "./tx.js";
import { base64 } from "../shared/util.js";
import type { Logger } from "../../../base/logger.js";

export interface DeliverContext {
  chainId: string;
  router: MsgRouter;
  logger: Required<Logger>;
}

/** Executes the tx bytes on `block` (undecodable bytes are a failed tx, as CometBFT may include anything). */
export function deliverTx(c: DeliverContext, block: Branch, bytes: Uint8Array, info: BlockInfo): TxResultJson {
  let tx: DecodedTx;
  try {
    tx = decodeTx(bytes);
  } catch (e) {
    const t = toTxError(e);
    return txResult(0n, t.code, t.codespace, t.log, 0n, [], null);
  }
  const gasWanted = tx.authInfo.fee?.gasLimit ?? 0n;
  const anteBranch = block.branch();
  let ante;
  try {
    ante = runAnte(anteBranch, tx, { chainId: c.chainId, height: info.height });
  } catch (e) {
    const t = toTxError(e);
    return txResult(gasWanted, t.code, t.codespace, t.log, 0n, [], null);
  }
  anteBranch.write();
  const msgBranch = block.branch();
  const events: ChainEvent[] = [];
  const responses: Any[] = [];
  const gasUsed = ante.gasUsed + messageGas(tx);
  try {
    if (gasUsed > gasWanted) {
      throw txErrors.outOfGas(`out of gas in location: message execution; gasWanted: ${gasWanted}, gasUsed: ${gasUsed}`);
    }
    for (const [i, m] of tx.msgs.entries()) {
      const r = executeMsg(c.router, msgBranch, m, i, info);
      const idx: [string, string] = ["msg_index", String(i)];
      events.push({ type: "message", attributes: [["action", m.typeUrl], ["sender", m.signer], ["module", moduleOf(m.typeUrl)], idx] });
      for (const e of r.events) events.push({ type: e.type, attributes: [...e.attributes, idx] });
      responses.push({ typeUrl: r.responseTypeUrl, value: r.data });
    }
  } catch (e) {
    msgBranch.discard();
    const t = toTxError(e);
    c.logger.info("tx failed", { module: "txs", height: info.height, tx: tx.hashHex, code: t.code, codespace: t.codespace, log: t.log });
    return txResult(gasWanted, t.code, t.codespace, t.log, gasUsed, ante.events, null);
  }
  msgBranch.write();
  const data = TxMsgData.encode({ data: [], msgResponses: responses }).finish();
  return txResult(gasWanted, 0, "", "", gasUsed, [...ante.events, ...events], data);
}

/**
 * Simulates a tx on `branch` (`/cosmos.tx.v1beta1.Service/Simulate`): the ante handler without signature
 * checks, then the messages. Throws the TxError a DeliverTx would report.
 */
export function simulateTx(
  c: DeliverContext,
  branch: Branch,
  bytes: Uint8Array,
  info: BlockInfo,
): { gasWanted: bigint; gasUsed: bigint; data: Uint8Array; events: ChainEvent[]; msgResponses: Any[] } {
  const tx = decodeTx(bytes);
  const ante = runAnte(branch, tx, { chainId: c.chainId, height: info.height, simulate: true });
  const events = [...ante.events];
  const responses: Any[] = [];
  for (const [i, m] of tx.msgs.entries()) {
    const r = executeMsg(c.router, branch, m, i, info);
    events.push(
      {
        type: "message",
        attributes: [
          ["action", m.typeUrl],
          ["sender", m.signer],
          ["module", moduleOf(m.typeUrl)],
          ["msg_index", String(i)],
        ],
      },
      ...r.events,
    );
    responses.push({ typeUrl: r.responseTypeUrl, value: r.data });
  }
  const data = TxMsgData.encode({ data: [], msgResponses: responses }).finish();
  return { gasWanted: ante.gasWanted, gasUsed: ante.gasUsed + messageGas(tx), data, events, msgResponses: responses };
}

function executeMsg(router: MsgRouter, view: Branch, m: DecodedTx["msgs"][number], index: number, info: BlockInfo): MsgResult {
  try {
    return router.execute(view, m, info);
  } catch (e) {
    const t = toTxError(e);
    throw new TxError(t.codespace, t.code, `failed to execute message; message index: ${index}: ${t.log}`);
  }
}

function txResult(
  gasWanted: bigint,
  code: number,
  codespace: string,
  log: string,
  gasUsed: bigint,
  events: ChainEvent[],
  data: Uint8Array | null,
): TxResultJson {
  return {
    code,
    data: data === null || data.length === 0 ? null : base64(data),
    log,
    info: "",
    gas_wanted: gasWanted.toString(),
    gas_used: gasUsed.toString(),
    events: events.map(eventJson),
    codespace,
  };
}
