/**
 * Transaction construction (docs/spec/interfaces.md §7.2, §8): `--generate-only` output byte for byte, and the signed
 * example vectors (TxBody, AuthInfo, SignDoc, signature, tx hash) reproduced by the real CLI (`--offline`)
 * and by the functions it uses.
 */
import { Secp256k1, Secp256k1Signature, sha256 } from "@cosmjs/crypto";
import { makeSignBytes } from "@cosmjs/proto-signing";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as tar from "tar";
import { afterAll, describe, expect, it } from "vitest";
import { loadCore } from "../../../bindings/core/index.js";
import { cancelUpgradeMsg, softwareUpgradeMsg, submitProposalMsg } from "../../../bindings/apps/cli/tx/msgs.js";
import { encodeAuthInfo, encodeSignDoc, encodeTxBody } from "../../../bindings/apps/cli/tx/proto.js";
import { signDirect } from "../../../bindings/apps/cli/tx/sign.js";
import wire from "../../vectors/wire.json" with { type: "json" };
import { GOV, TEST_KEY, errorLine, removeTempDirs, runCli, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));

// docs/spec/interfaces.md §8
const TX_BODY =
  "0a88020a202f636f736d6f732e676f762e76312e4d73675375626d697450726f706f73616c12e3010a730a2a2f636f736d6f732e757067726164652e763162657461312e4d7367536f6674776172655570677261646512450a2d636f736d6f73313064303779323635676d6d757674347a30773961773838306a6e73723730306a367a6e396b6e12140a027632120b088092b8c398feffffff0118e80712110a057374616b65120831303030303030301a2d636f736d6f7331307a67397438766d353861706a6863726b777776396a6e736c793361707a79703468333776302a0d5570677261646520746f207632321b53776974636820746f207632206174206865696768742031303030";
const AUTH_INFO =
  "0a4e0a460a1f2f636f736d6f732e63727970746f2e736563703235366b312e5075624b657912230a2103f76b4c534d43105f8a8a2f582b40f908b818a7052591ff3aaed4224c161e7cb412040a020801120410c09a0c";
const SIGN_DOC = "0a8b02" + TX_BODY + "1256" + AUTH_INFO + "1a1178757067726164652d6465766e65742d312005";
const SIGNATURE = "a86dc6149d5a14540a6bf4758a1a41272cc3b5d46d1393fd0a895de0be297d084ee41fdcb4d529a04dd6bce58b79b1e73cef1cc3e5e35a165ec08aad76ee66ea";
const TX_RAW = "0a8b02" + TX_BODY + "1256" + AUTH_INFO + "1a40" + SIGNATURE;
const TX_HASH = "6D45233A37A82CC9E28CD1F14D2CF60A1FFD7D3F6AD7A8C80D030B6033A074A5";

const PROPOSER = "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu";
const GENERATE_ONLY =
  '{"body":{"messages":[{"@type":"/cosmos.gov.v1.MsgSubmitProposal","messages":[{"@type":"/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade","authority":"cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn","plan":{"name":"v2","time":"0001-01-01T00:00:00Z","height":"1000","info":"","upgraded_client_state":null}}],"initial_deposit":[{"denom":"stake","amount":"10000000"}],"proposer":"' +
  PROPOSER +
  '","metadata":"","title":"Upgrade to v2","summary":"Switch to v2 at height 1000","expedited":false}],"memo":"","timeout_height":"0","extension_options":[],"non_critical_extension_options":[]},"auth_info":{"signer_infos":[],"fee":{"amount":[],"gas_limit":"200000","payer":"","granter":""},"tip":null},"signatures":[]}\n';

const upgradeArgs = [
  "tx",
  "upgrade",
  "software-upgrade",
  "v2",
  "--title",
  "Upgrade to v2",
  "--summary",
  "Switch to v2 at height 1000",
  "--deposit",
  "10000000stake",
  "--upgrade-height",
  "1000",
];

describe.each(["wasm", "js"] as const)("the CLI (%s core)", (backend) => {
  const env = { XUPGRADE_CORE: backend };

  it("--generate-only prints the unsigned tx exactly as docs/spec/interfaces.md §7.2", async () => {
    // Info is "" here, which docs/spec/interfaces.md §9 validation refuses ("plan info must not be blank"): the example needs --no-validate.
    const r = await runCli([...upgradeArgs, "--from", PROPOSER, "--generate-only", "--no-validate", "--home", tempDir()], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(GENERATE_ONLY);
  });

  it("--offline signing reproduces the signed example of docs/spec/interfaces.md §8", async () => {
    const home = tempDir();
    expect((await runCli(["keys", "import-hex", "test1", TEST_KEY.privkey, "--keyring-backend", "test", "--home", home], { env })).code).toBe(0);
    const r = await runCli(
      [
        ...upgradeArgs,
        "--from",
        "test1",
        "--keyring-backend",
        "test",
        "--home",
        home,
        "--no-validate",
        "--offline",
        "--chain-id",
        "xupgrade-devnet-1",
        "--account-number",
        "5",
        "--sequence",
        "0",
        "--yes",
        "-o",
        "json",
      ],
      { env },
    );
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as { txhash: string; tx_bytes: string };
    expect(out.txhash).toBe(TX_HASH);
    expect(Buffer.from(out.tx_bytes, "base64").toString("hex")).toBe(TX_RAW);
  });
});

describe("--generate-only for the other transactions", () => {
  it("cancel-software-upgrade with fees, gas, note and metadata", async () => {
    const r = await runCli([
      "tx",
      "upgrade",
      "cancel-software-upgrade",
      "--title",
      "Cancel v2",
      "--summary",
      "Abort the v2 upgrade",
      "--deposit",
      "10000000stake,5uatom,0zero",
      "--from",
      PROPOSER,
      "--generate-only",
      "--fees",
      "500stake",
      "--gas",
      "3000000000",
      "--note",
      "memo <&>",
      "--metadata",
      "ipfs://x",
      "--home",
      tempDir(),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '{"body":{"messages":[{"@type":"/cosmos.gov.v1.MsgSubmitProposal","messages":[{"@type":"/cosmos.upgrade.v1beta1.MsgCancelUpgrade","authority":"' +
        GOV +
        '"}],"initial_deposit":[{"denom":"stake","amount":"10000000"},{"denom":"uatom","amount":"5"}],"proposer":"' +
        PROPOSER +
        '","metadata":"ipfs://x","title":"Cancel v2","summary":"Abort the v2 upgrade","expedited":false}],"memo":"memo \\u003c\\u0026\\u003e","timeout_height":"0","extension_options":[],"non_critical_extension_options":[]},' +
        '"auth_info":{"signer_infos":[],"fee":{"amount":[{"denom":"stake","amount":"500"}],"gas_limit":"3000000000","payer":"","granter":""},"tip":null},"signatures":[]}\n',
    );
  });

  it("tx gov vote", async () => {
    const r = await runCli(["tx", "gov", "vote", "7", "no_with_veto", "--from", PROPOSER, "--generate-only", "--home", tempDir()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '{"body":{"messages":[{"@type":"/cosmos.gov.v1.MsgVote","proposal_id":"7","voter":"' +
        PROPOSER +
        '","option":"VOTE_OPTION_NO_WITH_VETO","metadata":""}],"memo":"","timeout_height":"0","extension_options":[],"non_critical_extension_options":[]},"auth_info":{"signer_infos":[],"fee":{"amount":[],"gas_limit":"200000","payer":"","granter":""},"tip":null},"signatures":[]}\n',
    );
  });
});

describe("the pieces the CLI signs with", () => {
  it("build the docs/spec/interfaces.md §8 TxBody, AuthInfo, SignDoc and signature", async () => {
    const core = await loadCore("wasm");
    const msg = submitProposalMsg([softwareUpgradeMsg(core, GOV, { name: "v2", height: 1000n, info: "" })], {
      initialDeposit: [{ denom: "stake", amount: "10000000" }],
      proposer: TEST_KEY.address,
      metadata: "",
      title: "Upgrade to v2",
      summary: "Switch to v2 at height 1000",
    });
    const body = encodeTxBody({ messages: [msg.any], memo: "", timeoutHeight: 0n });
    const auth = encodeAuthInfo({
      signerInfos: [{ pubkey: unhex(TEST_KEY.pubkey), sequence: 0n }],
      fee: { amount: [], gasLimit: 200000n, payer: "", granter: "" },
    });
    expect(hex(body)).toBe(TX_BODY);
    expect(hex(auth)).toBe(AUTH_INFO);
    const doc = { bodyBytes: body, authInfoBytes: auth, chainId: "xupgrade-devnet-1", accountNumber: 5n };
    const { signature, signBytes } = await signDirect(unhex(TEST_KEY.privkey), doc);
    expect(hex(signBytes)).toBe(SIGN_DOC);
    expect(hex(makeSignBytes(doc))).toBe(SIGN_DOC); // cosmjs agrees here
    expect(hex(signature)).toBe(SIGNATURE);
    expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(signature), sha256(signBytes), unhex(TEST_KEY.pubkey))).toBe(true);
  });

  it("match the wire.json proposal and the docs/spec/interfaces.md §8 cancel vectors", async () => {
    const core = await loadCore("js");
    const su = submitProposalMsg([softwareUpgradeMsg(core, GOV, { name: "v2", height: 1000n, info: "" })], {
      initialDeposit: [{ denom: "stake", amount: "10000000" }],
      proposer: PROPOSER,
      metadata: "",
      title: "Upgrade to v2",
      summary: "Switch to v2 at height 1000",
    });
    expect(hex(su.any.value)).toBe(wire.messages.gov_v1_submit_proposal_software_upgrade);
    const cancelInner = cancelUpgradeMsg(GOV);
    expect(hex(cancelInner.any.value)).toBe(wire.messages.msg_cancel_upgrade);
    const cancel = submitProposalMsg([cancelInner], {
      initialDeposit: [{ denom: "stake", amount: "10000000" }],
      proposer: PROPOSER,
      metadata: "",
      title: "Cancel v2",
      summary: "Abort the v2 upgrade",
    });
    const anyHex = "0a282f636f736d6f732e757067726164652e763162657461312e4d736743616e63656c55706772616465122f" + wire.messages.msg_cancel_upgrade;
    expect(hex(cancel.any.value)).toBe(
      "0a5b" +
        anyHex +
        "12110a057374616b65120831303030303030301a2d636f736d6f7331717970717870713971637273737a673270767871367273307a716733797963356c7a763778752a0943616e63656c207632321441626f7274207468652076322075706772616465",
    );
  });

  it("sign the right bytes where cosmjs-types mis-encodes the account number", async () => {
    const doc = { bodyBytes: unhex(TX_BODY), authInfoBytes: unhex(AUTH_INFO), chainId: "c", accountNumber: 3_000_000_000n };
    const { signature, signBytes } = await signDirect(unhex(TEST_KEY.privkey), doc);
    expect(hex(signBytes).endsWith("20" + "80bcc1960b")).toBe(true); // field 4, varint(3000000000)
    expect(hex(makeSignBytes(doc))).not.toBe(hex(signBytes));
    expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(signature), sha256(signBytes), unhex(TEST_KEY.pubkey))).toBe(true);
    expect(hex(encodeSignDoc(doc))).toBe(hex(signBytes));
  });
});

describe("plan info through the CLI flags", () => {
  it("--no-checksum-required, --daemon-name and $DAEMON_NAME reach the validation; the info is carried verbatim", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "pkg/bin"), { recursive: true });
    writeFileSync(join(dir, "pkg/bin/mynode"), "#!/bin/sh\n");
    writeFileSync(join(dir, "pkg/README"), "x");
    await tar.c({ file: join(dir, "app.tar.gz"), cwd: join(dir, "pkg"), gzip: true }, ["bin", "README"]);
    const infoText = JSON.stringify({ binaries: { any: `file://${dir}/app.tar.gz` } });
    const args = [
      "tx",
      "upgrade",
      "software-upgrade",
      "v2",
      "--title",
      "t",
      "--summary",
      "s",
      "--upgrade-height",
      "10",
      "--from",
      PROPOSER,
      "--generate-only",
      "--home",
      dir,
      "--upgrade-info",
      infoText,
    ];

    const enforced = await runCli(args);
    expect(enforced.code).toBe(1);
    expect(enforced.stderr).toBe(`Error: invalid plan info:\ninvalid url "file://${dir}/app.tar.gz" in binaries[any]: missing checksum query parameter\n`);
    expect(errorLine(await runCli([...args, "--no-checksum-required"]))).toBe(
      `error downloading binary for os/arch any: url "file://${dir}/app.tar.gz" result does not contain a bin/xupgrade or xupgrade file`,
    );
    const ok = await runCli([...args, "--no-checksum-required", "--daemon-name", "mynode"]);
    expect(ok.stderr).toBe("");
    expect(JSON.parse(ok.stdout).body.messages[0].messages[0].plan.info).toBe(infoText);
    const viaEnv = await runCli([...args, "--no-checksum-required"], { env: { DAEMON_NAME: "mynode" } });
    expect(viaEnv.stdout).toBe(ok.stdout);
    const skipped = await runCli([...args, "--no-validate", "--daemon-name", "other"]);
    expect(skipped.stdout).toBe(ok.stdout);
  }, 60_000);
});
