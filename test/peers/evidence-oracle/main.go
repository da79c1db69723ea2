// evidence-oracle: CometBFT v0.38.26's own reading of a light client attack evidence, for the light client's
// tests (docs/spec/light-client.md §4.7). It reads one case as JSON on stdin — the evidence as xupgrade sends
// it to broadcast_evidence, and the honest chain's light block at the evidence's height and signed header at
// the conflicting height — decodes the evidence with CometBFT's JSON decoder (as the RPC server does), and
// answers what a full node would: ValidateBasic, the hash, the evidence re-encoded by cmtjson, and the verdict
// of the evidence pool's checks (the time of the common block, evidence.VerifyLightClientAttack).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cometbft/cometbft/evidence"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	"github.com/cometbft/cometbft/types"
)

type input struct {
	// The evidence, as types.Evidence in cmtjson ({"type": "tendermint/LightClientAttackEvidence", "value": …}).
	Evidence json.RawMessage `json:"evidence"`
	// The honest chain's light block at the evidence's height (its common height).
	Common json.RawMessage `json:"common"`
	// The honest chain's signed header at the conflicting block's height (the same as Common's when equal).
	Trusted json.RawMessage `json:"trusted"`
}

type output struct {
	Error      string          `json:"error,omitempty"`
	ValidBasic string          `json:"valid_basic"`
	Hash       string          `json:"hash,omitempty"`
	Reencoded  json.RawMessage `json:"reencoded,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Byzantine  []string        `json:"byzantine"`
	Verify     string          `json:"verify"`
}

func main() {
	out := run()
	bz, _ := json.Marshal(out)
	fmt.Println(string(bz))
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func run() output {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		return output{Error: err.Error()}
	}
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return output{Error: "input: " + err.Error()}
	}
	var ev types.Evidence
	if err := cmtjson.Unmarshal(in.Evidence, &ev); err != nil {
		return output{Error: "evidence: " + err.Error()}
	}
	lca, ok := ev.(*types.LightClientAttackEvidence)
	if !ok {
		return output{Error: fmt.Sprintf("evidence: %T is not a LightClientAttackEvidence", ev)}
	}
	o := output{ValidBasic: errText(ev.ValidateBasic()), Byzantine: []string{}}
	if o.ValidBasic != "ok" {
		return o
	}
	o.Hash = strings.ToUpper(fmt.Sprintf("%x", ev.Hash()))
	if re, err := cmtjson.Marshal(ev); err == nil {
		o.Reencoded = re
	} else {
		o.Error = "re-encoding: " + err.Error()
	}

	var common types.LightBlock
	if err := cmtjson.Unmarshal(in.Common, &common); err != nil {
		return output{Error: "common: " + err.Error()}
	}
	var trusted types.SignedHeader
	if err := cmtjson.Unmarshal(in.Trusted, &trusted); err != nil {
		return output{Error: "trusted: " + err.Error()}
	}
	switch {
	case lca.ConflictingHeaderIsInvalid(trusted.Header):
		o.Kind = "lunatic"
	case trusted.Commit.Round == lca.ConflictingBlock.Commit.Round:
		o.Kind = "equivocation"
	default:
		o.Kind = "amnesia"
	}
	for _, v := range lca.GetByzantineValidators(common.ValidatorSet, &trusted) {
		o.Byzantine = append(o.Byzantine, v.Address.String())
	}

	// The evidence pool's verify (evidence/verify.go), with the honest chain's blocks as its store.
	if common.Height != ev.Height() {
		o.Verify = fmt.Sprintf("the common block is at height %d, the evidence's height is %d", common.Height, ev.Height())
		return o
	}
	if !ev.Time().Equal(common.Time) {
		o.Verify = fmt.Sprintf("evidence has a different time to the block it is associated with (%v != %v)", ev.Time(), common.Time)
		return o
	}
	o.Verify = errText(evidence.VerifyLightClientAttack(lca, common.SignedHeader, &trusted, common.ValidatorSet, time.Now(), 0))
	return o
}
