// Command oracle writes the test vectors of xupgrade's IAVL tree and multistore commitment
// (test/store/iavl/vectors.json) from the reference implementations a Cosmos SDK v0.50 node runs:
// github.com/cosmos/iavl v1.2.2 (tree, node hashing, ICS23 proofs) and cosmossdk.io/store v1.1.1
// (CommitInfo: the multistore root and its ics23:simple proof op).
//
//	cd test/store/iavl/oracle && GOTOOLCHAIN=local go run . > ../vectors.json
//
// The operations are drawn from a fixed seed and written into the vectors, so the TypeScript tests replay
// exactly what the reference saw; nothing here is random from run to run.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"sort"

	storetypes "cosmossdk.io/store/types"
	"github.com/cosmos/iavl"
	idb "github.com/cosmos/iavl/db"
)

type op struct {
	Key   string
	Value *string // hex; nil: delete
}

// MarshalJSON writes an op compactly: ["<key hex>", "<value hex>"] for a set, ["<key hex>"] for a delete.
func (o op) MarshalJSON() ([]byte, error) {
	if o.Value == nil {
		return json.Marshal([]string{o.Key})
	}
	return json.Marshal([]string{o.Key, *o.Value})
}

type version struct {
	Version int64  `json:"version"`
	Ops     []op   `json:"ops"`
	Hash    string `json:"hash"`
	Size    int64  `json:"size"`
}

type proof struct {
	Version int64  `json:"version"`
	Key     string `json:"key"`
	Value   string `json:"value,omitempty"` // hex, when the key exists
	Exists  bool   `json:"exists"`
	Proof   string `json:"proof"` // hex CommitmentProof, as the SDK puts it in ProofOp.Data
}

type treeCase struct {
	Name           string    `json:"name"`
	InitialVersion int64     `json:"initial_version"`
	Versions       []version `json:"versions"`
	Proofs         []proof   `json:"proofs"`
}

type storeInfo struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

type storeProof struct {
	Store string `json:"store"`
	Proof string `json:"proof"` // hex CommitmentProof of the ics23:simple op
}

type multiCase struct {
	Name    string       `json:"name"`
	Stores  []storeInfo  `json:"stores"`
	AppHash string       `json:"app_hash"`
	Proofs  []storeProof `json:"proofs"`
}

type vectors struct {
	Source string      `json:"source"`
	Trees  []treeCase  `json:"trees"`
	Multi  []multiCase `json:"multistores"`
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func hx(b []byte) string { return hex.EncodeToString(b) }

func ptr(s string) *string { return &s }

// run applies each version's ops to a fresh tree (Set / Remove in the given order, then SaveVersion, as
// the SDK's iavl store does at Commit), then asks for proofs of `probe` keys at the given versions.
func run(name string, initial int64, batches [][]op, probes map[int64][]string) treeCase {
	opts := []iavl.Option{}
	if initial > 0 {
		opts = append(opts, iavl.InitialVersionOption(uint64(initial)))
	}
	tree := iavl.NewMutableTree(idb.NewMemDB(), 0, true, iavl.NewNopLogger(), opts...)
	tc := treeCase{Name: name, InitialVersion: initial}
	for _, ops := range batches {
		for _, o := range ops {
			k, err := hex.DecodeString(o.Key)
			must(err)
			if o.Value == nil {
				_, _, err = tree.Remove(k)
			} else {
				v, err2 := hex.DecodeString(*o.Value)
				must(err2)
				_, err = tree.Set(k, v)
			}
			must(err)
		}
		hash, v, err := tree.SaveVersion()
		must(err)
		tc.Versions = append(tc.Versions, version{Version: v, Ops: ops, Hash: hx(hash), Size: tree.Size()})
	}
	vs := make([]int64, 0, len(probes))
	for v := range probes {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	for _, v := range vs {
		it, err := tree.GetImmutable(v)
		must(err)
		for _, ks := range probes[v] {
			k, err := hex.DecodeString(ks)
			must(err)
			val, err := it.Get(k)
			must(err)
			p := proof{Version: v, Key: ks, Exists: val != nil}
			mt := &iavl.MutableTree{ImmutableTree: it}
			if val != nil {
				p.Value = hx(val)
				cp, err := mt.GetMembershipProof(k)
				must(err)
				bz, err := cp.Marshal()
				must(err)
				p.Proof = hx(bz)
			} else {
				cp, err := mt.GetNonMembershipProof(k)
				must(err)
				bz, err := cp.Marshal()
				must(err)
				p.Proof = hx(bz)
			}
			tc.Proofs = append(tc.Proofs, p)
		}
	}
	return tc
}

func set(k, v string) op { return op{Key: hx([]byte(k)), Value: ptr(hx([]byte(v)))} }
func del(k string) op    { return op{Key: hx([]byte(k))} }

func small() treeCase {
	batches := [][]op{
		{set("b", "2"), set("a", "1"), set("c", "3")},
		{set("b", "22"), del("a"), del("zz")},
		{del("b"), del("c")},
		{set("m", ""), op{Key: "00", Value: ptr("ff")}, op{Key: "ffff", Value: ptr("00")}, set("k", "v")},
		{},
		{set("k", "v2"), set("l", "x"), set("n", "y"), set("o", "z"), del("m")},
	}
	probes := map[int64][]string{
		1: {hx([]byte("a")), hx([]byte("b")), hx([]byte("c")), hx([]byte("0")), hx([]byte("bb")), hx([]byte("d"))},
		2: {hx([]byte("b")), hx([]byte("a")), hx([]byte("d"))},
		4: {hx([]byte("m")), "00", "ffff", "01", "ff", "ffffff"},
		6: {hx([]byte("k")), hx([]byte("l")), hx([]byte("n")), hx([]byte("o")), hx([]byte("m")), "", "00"},
	}
	return run("small", 0, batches, probes)
}

// randomKey: short and long keys, some sharing prefixes, so that order and length both matter.
func randomKey(r *rand.Rand) []byte {
	n := 1 + r.Intn(12)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Intn(6) * 43)
	}
	return b
}

func random(name string, seed int64, initial int64, nversions, opsPer int) treeCase {
	r := rand.New(rand.NewSource(seed))
	live := map[string]bool{}
	var batches [][]op
	for v := 0; v < nversions; v++ {
		var ops []op
		for i := 0; i < opsPer; i++ {
			if len(live) > 0 && r.Intn(10) < 3 {
				// delete: usually a live key, sometimes an absent one
				var k string
				if r.Intn(5) > 0 {
					keys := make([]string, 0, len(live))
					for k := range live {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					k = keys[r.Intn(len(keys))]
				} else {
					k = hx(randomKey(r))
				}
				delete(live, k)
				ops = append(ops, op{Key: k})
				continue
			}
			k := hx(randomKey(r))
			val := make([]byte, r.Intn(40))
			r.Read(val)
			live[k] = true
			ops = append(ops, op{Key: k, Value: ptr(hx(val))})
		}
		batches = append(batches, ops)
	}
	first := int64(1)
	if initial > 0 {
		first = initial
	}
	probes := map[int64][]string{}
	for _, v := range []int64{first + int64(nversions)/2, first + int64(nversions) - 1} {
		var ks []string
		for i := 0; i < 6; i++ {
			ks = append(ks, hx(randomKey(r)))
		}
		// and keys written by that version's block (most still present)
		ops := batches[v-first]
		for i := 0; i < 6; i++ {
			ks = append(ks, ops[r.Intn(len(ops))].Key)
		}
		probes[v] = ks
	}
	return run(name, initial, batches, probes)
}

// bulk: a store's data moved in one block (the store loader's rename writes every key in order), then
// half of it removed.
func bulk() treeCase {
	var first, second []op
	for i := 0; i < 600; i++ {
		first = append(first, op{Key: hx([]byte(fmt.Sprintf("acct/%05d", i))), Value: ptr(hx([]byte(fmt.Sprintf("balance %d", i*7))))})
	}
	for i := 0; i < 600; i += 2 {
		second = append(second, op{Key: hx([]byte(fmt.Sprintf("acct/%05d", i)))})
	}
	probes := map[int64][]string{
		11: {hx([]byte("acct/00000")), hx([]byte("acct/00599")), hx([]byte("acct/00300")), hx([]byte("acct/")), hx([]byte("b"))},
		12: {hx([]byte("acct/00000")), hx([]byte("acct/00001")), hx([]byte("acct/00598")), hx([]byte("acct/00599"))},
	}
	return run("bulk-from-initial-version", 11, [][]op{first, second}, probes)
}

func multi(name string, stores map[string][]byte) multiCase {
	ci := storetypes.CommitInfo{Version: 5}
	for n, h := range stores {
		ci.StoreInfos = append(ci.StoreInfos, storetypes.StoreInfo{Name: n, CommitId: storetypes.CommitID{Version: 5, Hash: h}})
	}
	sort.Slice(ci.StoreInfos, func(i, j int) bool { return ci.StoreInfos[i].Name < ci.StoreInfos[j].Name })
	mc := multiCase{Name: name, AppHash: hx(ci.Hash())}
	for _, si := range ci.StoreInfos {
		mc.Stores = append(mc.Stores, storeInfo{Name: si.Name, Hash: hx(si.CommitId.Hash)})
		op := ci.ProofOp(si.Name)
		if op.Type != storetypes.ProofOpSimpleMerkleCommitment || string(op.Key) != si.Name {
			panic("unexpected proof op")
		}
		mc.Proofs = append(mc.Proofs, storeProof{Store: si.Name, Proof: hx(op.Data)})
	}
	return mc
}

func main() {
	trees := []treeCase{small(), random("random", 23, 0, 20, 60), bulk(), random("random-initial-version", 7, 300, 4, 200)}
	hash := func(tc treeCase) []byte {
		b, err := hex.DecodeString(tc.Versions[len(tc.Versions)-1].Hash)
		must(err)
		return b
	}
	empty := iavl.NewMutableTree(idb.NewMemDB(), 0, true, iavl.NewNopLogger())
	emptyHash, _, err := empty.SaveVersion()
	must(err)
	out := vectors{
		Source: "cosmos/iavl v1.2.2 and cosmossdk.io/store v1.1.1 (Cosmos SDK v0.50), test/store/iavl/oracle",
		Trees:  trees,
		Multi: []multiCase{
			multi("one store", map[string][]byte{"upgrade": hash(trees[0])}),
			multi("devnet stores", map[string][]byte{
				"auth": hash(trees[1]), "bank": hash(trees[2]), "gov": hash(trees[3]), "staking": emptyHash,
				"upgrade": hash(trees[0]), "counter": hash(trees[1]), "memos": emptyHash, "tags": hash(trees[2]), "params": hash(trees[3]),
			}),
			multi("two stores", map[string][]byte{"a": emptyHash, "b/c": hash(trees[0])}),
		},
	}
	bz, err := json.Marshal(out)
	must(err)
	_, err = os.Stdout.Write(append(bz, '\n'))
	must(err)
}
