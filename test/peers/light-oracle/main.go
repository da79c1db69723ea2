// light-oracle: the reference verdicts for xupgrade's light client (docs/spec/light-client.md §8).
//
// It reads one case as JSON on stdin — the CometBFT RPC answers a node gave xupgrade's light client (the
// primary's and each witness's), the trust root, the clock, the height to verify, and the store proofs
// (abci_query answers) to check against that header's app hash — and writes its verdicts as JSON on stdout.
// Headers are verified by CometBFT v0.38's own light client (light.NewClient, skipping verification, the
// detector), reading the recorded answers through CometBFT's own RPC client and HTTP provider from a server
// on loopback; proofs by cosmos/ics23 with the SDK's two proof ops (ics23:iavl, then ics23:simple).
//
// With -ics23-lines it judges ICS23 proofs alone, one case per line (JSON) in and one verdict per line out
// (ics23Lines): the reference for the ICS23 differential tests (docs/spec/core.md §14.6).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	dbm "github.com/cometbft/cometbft-db"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	"github.com/cometbft/cometbft/libs/log"
	"github.com/cometbft/cometbft/light"
	"github.com/cometbft/cometbft/light/provider"
	httpp "github.com/cometbft/cometbft/light/provider/http"
	dbs "github.com/cometbft/cometbft/light/store/db"
	cmtcrypto "github.com/cometbft/cometbft/proto/tendermint/crypto"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	ics23 "github.com/cosmos/ics23/go"
)

// Answer is one recorded JSON-RPC call: what was asked and the node's result (or error).
type Answer struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type Source struct {
	Answers []Answer `json:"answers"`
}

type Proof struct {
	Name string `json:"name"`
	// The height whose header's app hash the proof is checked against (the query height + 1).
	HeaderHeight string `json:"header_height"`
	Store        string `json:"store"`
	Key          string `json:"key"` // hex
	// The abci_query result ({"response": {...}}) as the node sent it.
	Result json.RawMessage `json:"result"`
}

type Case struct {
	ChainID       string   `json:"chain_id"`
	TrustHeight   string   `json:"trust_height"`
	TrustHash     string   `json:"trust_hash"`
	TrustPeriod   string   `json:"trusting_period"`
	Now           string   `json:"now"`
	MaxClockDrift string   `json:"max_clock_drift"`
	TargetHeight  string   `json:"target_height"`
	Primary       Source   `json:"primary"`
	Witnesses     []Source `json:"witnesses"`
	Proofs        []Proof  `json:"proofs"`
}

type ProofVerdict struct {
	Name    string `json:"name"`
	Verdict string `json:"verdict"` // "exists", "absent" or "refused"
	Value   string `json:"value,omitempty"`
	Error   string `json:"error,omitempty"`
	// For a proven absence: the neighbours the proof names, which it proves present with these values.
	Left  *Entry `json:"left,omitempty"`
	Right *Entry `json:"right,omitempty"`
}

type Entry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type Verdict struct {
	Verdict string         `json:"verdict"` // "verified" or "refused"
	Kind    string         `json:"kind,omitempty"`
	Error   string         `json:"error,omitempty"`
	AppHash string         `json:"app_hash,omitempty"`
	Hash    string         `json:"hash,omitempty"`
	Proofs  []ProofVerdict `json:"proofs"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-ics23-lines" {
		if err := ics23Lines(os.Stdin, os.Stdout); err != nil {
			fatal(err)
		}
		return
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fatal(err)
	}
	var c Case
	if err := json.Unmarshal(input, &c); err != nil {
		fatal(fmt.Errorf("reading the case: %w", err))
	}
	out, err := json.MarshalIndent(run(c), "", "  ")
	if err != nil {
		fatal(err)
	}
	fmt.Println(string(out))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "light-oracle:", err)
	os.Exit(2)
}

func run(c Case) Verdict {
	v := Verdict{Proofs: []ProofVerdict{}}
	refuse := func(err error) Verdict {
		v.Verdict = "refused"
		v.Kind = kind(err)
		v.Error = err.Error()
		for _, p := range c.Proofs {
			v.Proofs = append(v.Proofs, ProofVerdict{Name: p.Name, Verdict: "refused", Error: "the header was not verified"})
		}
		return v
	}
	trustHeight, err1 := strconv.ParseInt(c.TrustHeight, 10, 64)
	target, err2 := strconv.ParseInt(c.TargetHeight, 10, 64)
	trustHash, err3 := hex.DecodeString(c.TrustHash)
	period, err4 := time.ParseDuration(c.TrustPeriod)
	drift, err5 := time.ParseDuration(c.MaxClockDrift)
	now, err6 := time.Parse(time.RFC3339Nano, c.Now)
	if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
		fatal(fmt.Errorf("the case's parameters: %w", err))
	}

	primary := serve(c.Primary)
	defer primary.Close()
	// CometBFT's client needs a witness; without one, the primary's own answers stand in (they can only agree).
	witnessSources := c.Witnesses
	if len(witnessSources) == 0 {
		witnessSources = []Source{c.Primary}
	}
	var witnesses []provider.Provider
	for _, w := range witnessSources {
		s := serve(w)
		defer s.Close()
		witnesses = append(witnesses, provide(c.ChainID, s.URL))
	}

	ctx := context.Background()
	client, err := light.NewClient(ctx, c.ChainID,
		light.TrustOptions{Period: period, Height: trustHeight, Hash: trustHash},
		provide(c.ChainID, primary.URL), witnesses, dbs.New(dbm.NewMemDB(), c.ChainID),
		light.SkippingVerification(light.DefaultTrustLevel), light.MaxClockDrift(drift), light.MaxRetryAttempts(1),
		light.Logger(log.NewNopLogger()))
	if err != nil {
		return refuse(err)
	}
	lb, err := client.VerifyLightBlockAtHeight(ctx, target, now)
	if err != nil {
		return refuse(err)
	}
	v.Verdict = "verified"
	v.Hash = strings.ToUpper(hex.EncodeToString(lb.Hash()))
	v.AppHash = strings.ToUpper(hex.EncodeToString(lb.AppHash))
	for _, p := range c.Proofs {
		v.Proofs = append(v.Proofs, checkProof(ctx, client, now, p))
	}
	return v
}

// kind names the check a CometBFT error is about, in the words of xupgrade's Check type.
func kind(err error) string {
	var expired light.ErrOldHeaderExpired
	var cant light.ErrNewValSetCantBeTrusted
	var conflict light.ErrConflictingHeaders
	var bad provider.ErrBadLightBlock
	msg := err.Error()
	switch {
	case errors.As(err, &expired):
		return "trusting-period"
	case errors.Is(err, light.ErrLightClientAttack), errors.As(err, &conflict), errors.Is(err, light.ErrFailedHeaderCrossReferencing):
		return "witness"
	case errors.As(err, &cant):
		return "trust-level"
	case msg == "nil or single block primary trace":
		// CometBFT v0.38.26 words a skip the trusted validators did not sign enough of, with no header in between
		// to bisect to, this way: verifySkippingAgainstPrimary unwraps ErrNewValSetCantBeTrusted to nil and then
		// compares the (empty) trace with the witnesses.
		return "trust-level"
	case strings.Contains(msg, "belongs to another chain"):
		return "chain-id"
	case strings.Contains(msg, "expected header's hash"):
		return "trusted-hash"
	case strings.Contains(msg, "commit signs block"):
		return "header-hash"
	case strings.Contains(msg, "wrong signature"):
		return "signature"
	case strings.Contains(msg, "insufficient voting power"):
		return "voting-power"
	case strings.Contains(msg, "to match validator set hash"), strings.Contains(msg, "to match those that were supplied"):
		return "validators-hash"
	case strings.Contains(msg, "expected old header next validators"):
		return "next-validators-hash"
	case strings.Contains(msg, "from the future"):
		return "clock-drift"
	case strings.Contains(msg, "to be after old header time"), strings.Contains(msg, "to be greater than one of old header"):
		return "header-order"
	case strings.Contains(msg, "validator address mismatch"), strings.Contains(msg, "wrong set size"), strings.Contains(msg, "double vote"):
		return "commit"
	case strings.Contains(msg, "can't create validator set"), strings.Contains(msg, "validator set is empty"):
		return "validator-set"
	case errors.As(err, &bad):
		return "header"
	}
	return "other"
}

func provide(chainID, url string) provider.Provider {
	p, err := httpp.New(chainID, url)
	if err != nil {
		fatal(err)
	}
	return p
}

// checkProof checks one abci_query answer against the app hash of the verified header at HeaderHeight,
// as the SDK's proof runtime does: ops[0] `ics23:iavl` proves the key in the store (existence of the value,
// or absence when the value is empty), ops[1] `ics23:simple` proves the store's root under its name, and the
// result is the app hash.
func checkProof(ctx context.Context, client *light.Client, now time.Time, p Proof) ProofVerdict {
	pv := ProofVerdict{Name: p.Name, Verdict: "refused"}
	fail := func(format string, a ...any) ProofVerdict {
		pv.Error = fmt.Sprintf(format, a...)
		return pv
	}
	h, err := strconv.ParseInt(p.HeaderHeight, 10, 64)
	if err != nil {
		return fail("header height: %v", err)
	}
	lb, err := client.VerifyLightBlockAtHeight(ctx, h, now)
	if err != nil {
		return fail("header %d: %v", h, err)
	}
	var res ctypes.ResultABCIQuery
	if err := cmtjson.Unmarshal(p.Result, &res); err != nil {
		return fail("the abci_query answer: %v", err)
	}
	key, err := hex.DecodeString(p.Key)
	if err != nil {
		return fail("key: %v", err)
	}
	r := res.Response
	if r.Code != 0 {
		return fail("abci_query code %d: %s", r.Code, r.Log)
	}
	if r.Height+1 != h {
		return fail("the answer is for height %d, the header is %d", r.Height, h)
	}
	if !bytes.Equal(r.Key, key) {
		return fail("the answer is for key %X", r.Key)
	}
	if r.ProofOps == nil {
		return fail("no proof (want 2 ops)")
	}
	v := storeProof(r.ProofOps.Ops, p.Store, key, r.Value, lb.AppHash)
	v.Name = p.Name
	return v
}

// storeProof checks a store proof's ops as the SDK's proof runtime does: ops[0] `ics23:iavl` proves the key in
// the store (existence of the value, or absence when the value is empty), ops[1] `ics23:simple` proves the
// store's root under its name, and the result must be the app hash. A proven absence names the neighbours of
// the non-existence proof (or batch entry) cosmos/ics23 checked.
func storeProof(ops []cmtcrypto.ProofOp, store string, key, value, appHash []byte) ProofVerdict {
	pv := ProofVerdict{Verdict: "refused"}
	fail := func(format string, a ...any) ProofVerdict {
		pv.Error = fmt.Sprintf(format, a...)
		return pv
	}
	if len(ops) != 2 {
		return fail("no proof (want 2 ops)")
	}
	if ops[0].Type != "ics23:iavl" || ops[1].Type != "ics23:simple" {
		return fail("proof op types %q, %q", ops[0].Type, ops[1].Type)
	}
	if !bytes.Equal(ops[0].Key, key) || string(ops[1].Key) != store {
		return fail("proof op keys %X, %q", ops[0].Key, ops[1].Key)
	}
	storeRoot, err := runOp(ops[0], ics23.IavlSpec, key, value)
	if err != nil {
		return fail("%s: %v", ops[0].Type, err)
	}
	got, err := runOp(ops[1], ics23.TendermintSpec, []byte(store), storeRoot)
	if err != nil {
		return fail("%s: %v", ops[1].Type, err)
	}
	if !bytes.Equal(got, appHash) {
		return fail("the proof gives app hash %X, the verified header's is %X", got, appHash)
	}
	var proof ics23.CommitmentProof
	if err := proof.Unmarshal(ops[0].Data); err != nil {
		return fail("%s: decoding the proof: %v", ops[0].Type, err)
	}
	return facts(ics23.IavlSpec, &proof, key, value)
}

// runOp is the SDK's CommitmentOp.Run (store/types/proof.go): the root the proof calculates, after checking it
// proves `value` under `key` (or, for an empty value, that `key` is absent).
func runOp(op cmtcrypto.ProofOp, spec *ics23.ProofSpec, key, value []byte) ([]byte, error) {
	var proof ics23.CommitmentProof
	if err := proof.Unmarshal(op.Data); err != nil {
		return nil, fmt.Errorf("decoding the proof: %w", err)
	}
	root, err := proof.Calculate()
	if err != nil {
		return nil, fmt.Errorf("could not calculate root: %w", err)
	}
	if len(value) == 0 {
		if !ics23.VerifyNonMembership(spec, root, &proof, key) {
			return nil, fmt.Errorf("proof did not verify absence of key %X", key)
		}
	} else if !ics23.VerifyMembership(spec, root, &proof, key, value) {
		return nil, fmt.Errorf("proof did not verify existence of key %X with value %X", key, value)
	}
	return root, nil
}

// ---- a node made of recorded answers ----

type node struct {
	commits    map[int64]json.RawMessage
	validators map[int64][]json.RawMessage
	srv        *http.Server
	URL        string
}

func (n *node) Close() { _ = n.srv.Close() }

// serve answers `commit` and `validators` from the recording (validators re-paged on demand), as a CometBFT
// node would; a height it has no answer for is "not available".
func serve(s Source) *node {
	n := &node{commits: map[int64]json.RawMessage{}, validators: map[int64][]json.RawMessage{}}
	seenPage := map[string]bool{}
	for _, a := range s.Answers {
		if a.Result == nil {
			continue
		}
		switch a.Method {
		case "commit":
			var r struct {
				SignedHeader struct {
					Header struct {
						Height string `json:"height"`
					} `json:"header"`
				} `json:"signed_header"`
			}
			if json.Unmarshal(a.Result, &r) == nil {
				if h, err := strconv.ParseInt(r.SignedHeader.Header.Height, 10, 64); err == nil {
					n.commits[h] = a.Result
				}
			}
		case "validators":
			var r struct {
				BlockHeight string            `json:"block_height"`
				Validators  []json.RawMessage `json:"validators"`
			}
			if json.Unmarshal(a.Result, &r) == nil {
				h, err := strconv.ParseInt(r.BlockHeight, 10, 64)
				if err != nil || seenPage[string(a.Params)+r.BlockHeight] {
					continue
				}
				seenPage[string(a.Params)+r.BlockHeight] = true
				n.validators[h] = append(n.validators[h], r.Validators...)
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	n.URL = "http://" + ln.Addr().String()
	n.srv = &http.Server{Handler: http.HandlerFunc(n.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = n.srv.Serve(ln) }()
	return n
}

func (n *node) handle(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage            `json:"id"`
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	reply := func(result any, errData string) {
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if errData != "" {
			out["error"] = map[string]any{"code": -32603, "message": "Internal error", "data": errData}
		} else {
			out["result"] = result
		}
		w.Header().Set("content-type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}
	height := intParam(req.Params, "height", 0)
	switch req.Method {
	case "commit":
		if c, ok := n.commits[height]; ok {
			reply(c, "")
			return
		}
	case "validators":
		vals, ok := n.validators[height]
		if ok {
			page, perPage := intParam(req.Params, "page", 1), intParam(req.Params, "per_page", 30)
			start, end := (page-1)*perPage, page*perPage
			if start >= int64(len(vals)) || start < 0 {
				reply(nil, fmt.Sprintf("page should be within [1, %d] range, given %d", (int64(len(vals))+perPage-1)/perPage, page))
				return
			}
			if end > int64(len(vals)) {
				end = int64(len(vals))
			}
			reply(map[string]any{
				"block_height": strconv.FormatInt(height, 10),
				"validators":   vals[start:end],
				"count":        strconv.FormatInt(end-start, 10),
				"total":        strconv.Itoa(len(vals)),
			}, "")
			return
		}
	default:
		reply(nil, "method not recorded: "+req.Method)
		return
	}
	reply(nil, fmt.Sprintf("height %d is not available", height))
}

func intParam(p map[string]json.RawMessage, name string, def int64) int64 {
	raw, ok := p[name]
	if !ok || string(raw) == "null" {
		return def
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return v
		}
	}
	var v int64
	if json.Unmarshal(raw, &v) == nil {
		return v
	}
	return def
}

// ---- ICS23 proofs alone, one case per line (-ics23-lines) ----

// ics23Case is one proof to judge: a store proof (Ops against AppHash, as checkProof judges an abci_query answer)
// or a single proof (Proof against Root under Spec "iavl", "tendermint" or "smt"). Bytes are hex; no Value
// (null) means the proof must show the key absent.
type ics23Case struct {
	ID      int64     `json:"id"`
	AppHash string    `json:"app_hash"`
	Store   string    `json:"store"`
	Ops     []ics23Op `json:"ops"`
	Spec    string    `json:"spec"`
	Root    string    `json:"root"`
	Proof   string    `json:"proof"`
	Key     string    `json:"key"`
	Value   *string   `json:"value"`
}

type ics23Op struct {
	Type string `json:"type"`
	Key  string `json:"key"`
	Data string `json:"data"`
}

// ics23Verdict: "exists" (with the value), "absent" (with the neighbours cosmos/ics23 checked) or "refused".
type ics23Verdict struct {
	ID int64 `json:"id"`
	ProofVerdict
}

// ics23Lines judges one case per input line and writes one verdict per line, flushed as it goes, so a
// caller can keep many cases in flight and a million run in one process.
func ics23Lines(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		var c ics23Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return fmt.Errorf("reading a case: %w", err)
		}
		line, err := json.Marshal(ics23Verdict{ID: c.ID, ProofVerdict: judge(c)})
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Flush()
}

// judge runs one case; a panic inside cosmos/ics23 (v0.11 panics on some malformed neighbour paths) is a refusal.
func judge(c ics23Case) (pv ProofVerdict) {
	defer func() {
		if r := recover(); r != nil {
			pv = ProofVerdict{Verdict: "refused", Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	refuse := func(format string, a ...any) ProofVerdict {
		return ProofVerdict{Verdict: "refused", Error: fmt.Sprintf(format, a...)}
	}
	key, err := hex.DecodeString(c.Key)
	if err != nil {
		return refuse("key: %v", err)
	}
	var value []byte
	if c.Value != nil {
		if value, err = hex.DecodeString(*c.Value); err != nil {
			return refuse("value: %v", err)
		}
	}
	if c.Ops != nil {
		appHash, err := hex.DecodeString(c.AppHash)
		if err != nil {
			return refuse("app hash: %v", err)
		}
		ops := make([]cmtcrypto.ProofOp, len(c.Ops))
		for i, op := range c.Ops {
			k, err1 := hex.DecodeString(op.Key)
			d, err2 := hex.DecodeString(op.Data)
			if err := errors.Join(err1, err2); err != nil {
				return refuse("op %d: %v", i, err)
			}
			ops[i] = cmtcrypto.ProofOp{Type: op.Type, Key: k, Data: d}
		}
		return storeProof(ops, c.Store, key, value, appHash)
	}
	spec, ok := map[string]*ics23.ProofSpec{"iavl": ics23.IavlSpec, "tendermint": ics23.TendermintSpec, "smt": ics23.SmtSpec}[c.Spec]
	if !ok {
		return refuse("unknown spec %q", c.Spec)
	}
	root, err1 := hex.DecodeString(c.Root)
	data, err2 := hex.DecodeString(c.Proof)
	if err := errors.Join(err1, err2); err != nil {
		return refuse("root or proof: %v", err)
	}
	var proof ics23.CommitmentProof
	if err := proof.Unmarshal(data); err != nil {
		return refuse("decoding the proof: %v", err)
	}
	if len(value) == 0 {
		if !ics23.VerifyNonMembership(spec, root, &proof, key) {
			return refuse("proof did not verify absence of key %X", key)
		}
	} else if !ics23.VerifyMembership(spec, root, &proof, key, value) {
		return refuse("proof did not verify existence of key %X with value %X", key, value)
	}
	return facts(spec, &proof, key, value)
}

// facts says what a proof that verified proved, from the entry cosmos/ics23 v0.11 checked
// (getExistProofForKey, getNonExistProofForKey on the decompressed proof): the key's value, or its neighbours.
func facts(spec *ics23.ProofSpec, proof *ics23.CommitmentProof, key, value []byte) ProofVerdict {
	p := ics23.Decompress(proof)
	var entries []*ics23.BatchEntry
	switch v := p.Proof.(type) {
	case *ics23.CommitmentProof_Exist:
		entries = []*ics23.BatchEntry{{Proof: &ics23.BatchEntry_Exist{Exist: v.Exist}}}
	case *ics23.CommitmentProof_Nonexist:
		entries = []*ics23.BatchEntry{{Proof: &ics23.BatchEntry_Nonexist{Nonexist: v.Nonexist}}}
	case *ics23.CommitmentProof_Batch:
		entries = v.Batch.Entries
	}
	entry := func(e *ics23.ExistenceProof) *Entry {
		if e == nil {
			return nil
		}
		return &Entry{Key: hex.EncodeToString(e.Key), Value: hex.EncodeToString(e.Value)}
	}
	k := comparable(spec, key)
	for _, e := range entries {
		if len(value) > 0 {
			if ep := e.GetExist(); ep != nil && bytes.Equal(ep.Key, key) {
				return ProofVerdict{Verdict: "exists", Value: hex.EncodeToString(ep.Value)}
			}
		} else if np := e.GetNonexist(); np != nil &&
			(np.Left == nil || bytes.Compare(comparable(spec, np.Left.Key), k) < 0) &&
			(np.Right == nil || bytes.Compare(comparable(spec, np.Right.Key), k) > 0) {
			return ProofVerdict{Verdict: "absent", Left: entry(np.Left), Right: entry(np.Right)}
		}
	}
	return ProofVerdict{Verdict: "refused", Error: "verified, but no entry for the key (cannot happen)"}
}

// comparable is cosmos/ics23's keyForComparison: the key prehashed first when the spec says so.
func comparable(spec *ics23.ProofSpec, key []byte) []byte {
	if !spec.PrehashKeyBeforeComparison || spec.LeafSpec.PrehashKey == ics23.HashOp_NO_HASH {
		return key
	}
	if spec.LeafSpec.PrehashKey != ics23.HashOp_SHA256 {
		panic(fmt.Sprintf("prehash %v before comparison is not supported here", spec.LeafSpec.PrehashKey))
	}
	h := sha256.Sum256(key)
	return h[:]
}
