// Command iavl-bench commits the node-state workload of xupgrade's bench (case 11, bench/cases/state.ts)
// into the store a Cosmos SDK v0.50 node runs: cosmossdk.io/store v1.1.1's root multistore over
// github.com/cosmos/iavl v1.2.2 trees on goleveldb (github.com/cosmos/cosmos-db v1.1.1), the versions and the
// goleveldb replacement simd v0.50.15 builds with, configured as simd's app.toml defaults (iavl-cache-size
// 781250 nodes per store, fast nodes on, no inter-block cache), pruning with the bench's keep-recent at every
// block (so both sides do the same work in each block; the node's own interval is a flag). Commits are not
// fsynced, as on xupgrade's side: the database wrapper below turns WriteSync into Write.
//
//	iavl-bench build   <dir> <workload> [-prune-interval N]  # the bulk and ageing blocks into <dir>
//	iavl-bench measure <dir> <workload> [-prune-interval N]  # open, first read, the measured blocks, timed
//
// The workload is the file bench/cases/state.ts writes (one generator, replayed by both sides); each command
// prints one JSON object on stdout: per block its kind, wall and CPU time (every thread of the process),
// the nodes written and deleted, and the app hash, which the bench compares with xupgrade's at every height.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"cosmossdk.io/log"
	"cosmossdk.io/store/metrics"
	pruningtypes "cosmossdk.io/store/pruning/types"
	"cosmossdk.io/store/rootmulti"
	storetypes "cosmossdk.io/store/types"
	dbm "github.com/cosmos/cosmos-db"
)

// simd v0.50's app.toml default (server/config: IAVLCacheSize), per store.
const iavlCacheSize = 781250

// Workload file (written by bench/cases/state.ts; integers little-endian):
//
//	"xupgrade-state-workload 1\n"
//	u16 store count, then per store: u16 length ‖ name         (mounted in this order)
//	u32 keep-recent while ageing and measuring; u16 length ‖ the key read at start-up
//	blocks to the end: u8 phase (0 bulk, 1 ageing, 2 first of its kind after start-up, 3 warm-up, 4 sampled;
//	  from 2 on, measured) ‖ u8 kind (255: none) ‖ u32 op count ‖
//	  ops: u8 store ‖ u8 op (0 set, 1 delete) ‖ u16 length ‖ key ‖ (set) u16 length ‖ value
const magic = "xupgrade-state-workload 1\n"

const (
	phaseBulk     = 0
	phaseMeasured = 2
)

type op struct {
	store int
	del   bool
	key   []byte
	value []byte
}

type block struct {
	phase int
	kind  int
	ops   []op
}

type workload struct {
	r          *bufio.Reader
	f          *os.File
	stores     []string
	keepRecent int64
	probe      []byte
}

func openWorkload(path string) (*workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	w := &workload{r: bufio.NewReaderSize(f, 1<<20), f: f}
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(w.r, head); err != nil || string(head) != magic {
		return nil, fmt.Errorf("%s is not a state workload (version 1)", path)
	}
	n, err := w.u16()
	if err != nil {
		return nil, err
	}
	for i := 0; i < int(n); i++ {
		name, err := w.bytes()
		if err != nil {
			return nil, err
		}
		w.stores = append(w.stores, string(name))
	}
	keep, err := w.u32()
	if err != nil {
		return nil, err
	}
	w.keepRecent = int64(keep)
	if w.probe, err = w.bytes(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *workload) u16() (uint16, error) {
	var b [2]byte
	_, err := io.ReadFull(w.r, b[:])
	return binary.LittleEndian.Uint16(b[:]), err
}

func (w *workload) u32() (uint32, error) {
	var b [4]byte
	_, err := io.ReadFull(w.r, b[:])
	return binary.LittleEndian.Uint32(b[:]), err
}

func (w *workload) bytes() ([]byte, error) {
	n, err := w.u16()
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err = io.ReadFull(w.r, b)
	return b, err
}

// next reads the next block; io.EOF after the last one.
func (w *workload) next() (*block, error) {
	var head [6]byte
	if _, err := io.ReadFull(w.r, head[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("truncated workload: %w", err)
	}
	b := &block{phase: int(head[0]), kind: int(head[1])}
	if b.kind == 255 {
		b.kind = -1
	}
	count := binary.LittleEndian.Uint32(head[2:])
	b.ops = make([]op, count)
	for i := range b.ops {
		var h [2]byte
		if _, err := io.ReadFull(w.r, h[:]); err != nil {
			return nil, fmt.Errorf("truncated workload: %w", err)
		}
		if int(h[0]) >= len(w.stores) || h[1] > 1 {
			return nil, fmt.Errorf("bad op in the workload: store %d, op %d", h[0], h[1])
		}
		o := op{store: int(h[0]), del: h[1] == 1}
		var err error
		if o.key, err = w.bytes(); err != nil {
			return nil, fmt.Errorf("truncated workload: %w", err)
		}
		if !o.del {
			if o.value, err = w.bytes(); err != nil {
				return nil, fmt.Errorf("truncated workload: %w", err)
			}
		}
		b.ops[i] = o
	}
	return b, nil
}

// counts is what the store read from the database and wrote through its batches.
type counts struct {
	nodes, rootRefs, fastNodes, deletedNodes, deletedFast, nodeReads, fastReads int64
}

// countingDB counts the node reads and the node writes of every batch (iavl v1 keys within a store's prefix
// "s/k:<name>/": 's' ‖ 8-byte version ‖ 4-byte nonce a node, or a root reference when its value is 's' ‖ a
// node key; 'f' ‖ key a fast node) and makes synced writes plain ones (case 11 measures commits without
// fsync).
type countingDB struct {
	dbm.DB
	c *counts
}

func (d countingDB) NewBatch() dbm.Batch { return &countingBatch{d.DB.NewBatch(), d.c} }
func (d countingDB) NewBatchWithSize(n int) dbm.Batch {
	return &countingBatch{d.DB.NewBatchWithSize(n), d.c}
}
func (d countingDB) SetSync(k, v []byte) error { return d.DB.Set(k, v) }
func (d countingDB) Get(k []byte) ([]byte, error) {
	switch kind(k) {
	case 's':
		d.c.nodeReads++
	case 'f':
		d.c.fastReads++
	}
	return d.DB.Get(k)
}
func (d countingDB) DeleteSync(k []byte) error { return d.DB.Delete(k) }

type countingBatch struct {
	dbm.Batch
	c *counts
}

var storePrefix = regexp.MustCompile(`^s/k:[^/]+/`)

// kind is the iavl key kind after the store's prefix: 's' node (13 bytes), 'f' fast node, else 0.
func kind(key []byte) byte {
	loc := storePrefix.FindIndex(key)
	if loc == nil || loc[1] >= len(key) {
		return 0
	}
	rest := key[loc[1]:]
	if rest[0] == 's' && len(rest) == 13 {
		return 's'
	}
	if rest[0] == 'f' {
		return 'f'
	}
	return 0
}

func (b *countingBatch) Set(k, v []byte) error {
	switch kind(k) {
	case 's':
		if len(v) == 13 && v[0] == 's' {
			b.c.rootRefs++
		} else {
			b.c.nodes++
		}
	case 'f':
		b.c.fastNodes++
	}
	return b.Batch.Set(k, v)
}

func (b *countingBatch) Delete(k []byte) error {
	switch kind(k) {
	case 's':
		b.c.deletedNodes++
	case 'f':
		b.c.deletedFast++
	}
	return b.Batch.Delete(k)
}

func (b *countingBatch) WriteSync() error { return b.Batch.Write() }

type multistore struct {
	db   dbm.DB
	rs   *rootmulti.Store
	keys []storetypes.StoreKey
	c    *counts
}

func open(dir string, stores []string, keepRecent int64, interval uint64) (*multistore, error) {
	raw, err := dbm.NewGoLevelDB("application", dir, nil)
	if err != nil {
		return nil, err
	}
	c := &counts{}
	db := countingDB{raw, c}
	rs := rootmulti.NewStore(db, log.NewNopLogger(), metrics.NewNoOpMetrics())
	rs.SetIAVLCacheSize(iavlCacheSize)
	rs.SetIAVLDisableFastNode(false)
	ms := &multistore{db: raw, rs: rs, c: c}
	for _, name := range stores {
		k := storetypes.NewKVStoreKey(name)
		rs.MountStoreWithDB(k, storetypes.StoreTypeIAVL, nil)
		ms.keys = append(ms.keys, k)
	}
	rs.SetPruning(pruningtypes.NewCustomPruningOptions(uint64(keepRecent), interval))
	if err := rs.LoadLatestVersion(); err != nil {
		return nil, err
	}
	return ms, nil
}

func (ms *multistore) apply(b *block) {
	for _, o := range b.ops {
		s := ms.rs.GetCommitKVStore(ms.keys[o.store])
		if o.del {
			s.Delete(o.key)
		} else {
			s.Set(o.key, o.value)
		}
	}
}

// commit is what a node does at the end of a block: the working hash (FinalizeBlock's app hash), then the
// commit with its pruning.
func (ms *multistore) commit() []byte {
	ms.rs.WorkingHash()
	return ms.rs.Commit().Hash
}

// close closes the database, as a node stops (the root multistore of store v1.1.1 has no Close of its own).
func (ms *multistore) close() error {
	return ms.db.Close()
}

func cpuNs() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// status reads a field of /proc/self/status in bytes (Linux), or -1.
func status(field string) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(raw)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return v * 1024
}

func du(dir string) int64 {
	var total int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	return total
}

type buildResult struct {
	Heights   int64    `json:"heights"`
	Seconds   float64  `json:"seconds"`
	DiskBytes int64    `json:"disk_bytes"`
	AppHashes []string `json:"app_hashes"`
}

func build(dir string, w *workload, interval uint64) (*buildResult, error) {
	started := time.Now()
	// Bulk blocks with one version kept (as xupgrade's build), then the ageing blocks with keep-recent.
	ms, err := open(dir, w.stores, 1, interval)
	if err != nil {
		return nil, err
	}
	res := &buildResult{}
	phase := phaseBulk
	for {
		b, err := w.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if b.phase >= phaseMeasured {
			break
		}
		if b.phase != phase {
			if err := ms.close(); err != nil {
				return nil, err
			}
			if ms, err = open(dir, w.stores, w.keepRecent, interval); err != nil {
				return nil, err
			}
			phase = b.phase
		}
		ms.apply(b)
		res.AppHashes = append(res.AppHashes, hex.EncodeToString(ms.commit()))
	}
	res.Heights = ms.rs.LastCommitID().Version
	if err := ms.close(); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(started).Seconds()
	res.DiskBytes = du(dir)
	return res, nil
}

type blockResult struct {
	Height      int64   `json:"height"`
	Phase       int     `json:"phase"`
	Kind        int     `json:"kind"`
	Ops         int     `json:"ops"`
	WallMs      float64 `json:"wall_ms"`
	CPUMs       float64 `json:"cpu_ms"`
	Written     int64   `json:"written"`
	RootRefs    int64   `json:"root_refs"`
	FastWritten int64   `json:"fast_written"`
	Pruned      int64   `json:"pruned"`
	FastDeleted int64   `json:"fast_deleted"`
	Read        int64   `json:"read"`
	FastRead    int64   `json:"fast_read"`
	AppHash     string  `json:"app_hash"`
}

type measureResult struct {
	StartupMs     float64       `json:"startup_ms"`
	Blocks        []blockResult `json:"blocks"`
	PeakRssBytes  int64         `json:"peak_rss_bytes"`
	RssBytes      int64         `json:"rss_bytes"`
	RssAnonBytes  int64         `json:"rss_anon_bytes"`
	RssFileBytes  int64         `json:"rss_file_bytes"`
	GoHeapInuse   uint64        `json:"go_heap_inuse_bytes"`
	GoSys         uint64        `json:"go_sys_bytes"`
	GoVersion     string        `json:"go_version"`
	GoMaxProcs    int           `json:"gomaxprocs"`
	Modules       []string      `json:"modules"`
	IavlCacheSize int           `json:"iavl_cache_size"`
	PruneInterval uint64        `json:"prune_interval"`
	KeepRecent    int64         `json:"keep_recent"`
}

func measure(dir string, w *workload, interval uint64) (*measureResult, error) {
	// The measured blocks are read before the clock starts, as xupgrade's side makes its writes beforehand.
	var blocks []*block
	for {
		b, err := w.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if b.phase >= phaseMeasured {
			blocks = append(blocks, b)
		}
	}
	runtime.GC()

	t0 := time.Now()
	ms, err := open(dir, w.stores, w.keepRecent, interval)
	if err != nil {
		return nil, err
	}
	probe := ms.rs.GetCommitKVStore(ms.keys[0]).Get(w.probe)
	startup := time.Since(t0)
	if probe == nil {
		return nil, errors.New("the built state is missing the start-up key")
	}

	res := &measureResult{StartupMs: float64(startup.Nanoseconds()) / 1e6, IavlCacheSize: iavlCacheSize, PruneInterval: interval, KeepRecent: w.keepRecent}
	for _, b := range blocks {
		before := *ms.c
		t := time.Now()
		cpu := cpuNs()
		ms.apply(b)
		hash := ms.commit()
		usedCPU := cpuNs() - cpu
		wall := time.Since(t)
		after := *ms.c
		res.Blocks = append(res.Blocks, blockResult{
			Height:      ms.rs.LastCommitID().Version,
			Phase:       b.phase,
			Kind:        b.kind,
			Ops:         len(b.ops),
			WallMs:      float64(wall.Nanoseconds()) / 1e6,
			CPUMs:       float64(usedCPU) / 1e6,
			Written:     after.nodes - before.nodes,
			FastWritten: after.fastNodes - before.fastNodes,
			Pruned:      after.deletedNodes - before.deletedNodes,
			RootRefs:    after.rootRefs - before.rootRefs,
			FastDeleted: after.deletedFast - before.deletedFast,
			Read:        after.nodeReads - before.nodeReads,
			FastRead:    after.fastReads - before.fastReads,
			AppHash:     hex.EncodeToString(hash),
		})
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	res.PeakRssBytes = status("VmHWM")
	res.RssBytes = status("VmRSS")
	res.RssAnonBytes = status("RssAnon")
	res.RssFileBytes = status("RssFile")
	res.GoHeapInuse = mem.HeapInuse
	res.GoSys = mem.Sys
	res.GoVersion = runtime.Version()
	res.GoMaxProcs = runtime.GOMAXPROCS(0)
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			v := d.Version
			if d.Replace != nil {
				v = d.Replace.Version
			}
			switch d.Path {
			case "cosmossdk.io/store", "github.com/cosmos/iavl", "github.com/cosmos/cosmos-db", "github.com/syndtr/goleveldb":
				res.Modules = append(res.Modules, d.Path+"@"+v)
			}
		}
	}
	return res, ms.close()
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: iavl-bench build|measure <dir> <workload> [-prune-interval N]")
		os.Exit(64)
	}
	cmd, dir, path := os.Args[1], os.Args[2], os.Args[3]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	interval := fs.Uint64("prune-interval", 1, "prune every N blocks (simd's default is 10; the bench prunes every block, as xupgrade)")
	_ = fs.Parse(os.Args[4:])
	if *interval < 1 {
		fmt.Fprintln(os.Stderr, "iavl-bench: -prune-interval must be at least 1")
		os.Exit(64)
	}
	w, err := openWorkload(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "iavl-bench:", err)
		os.Exit(1)
	}
	defer w.f.Close()
	var out any
	switch cmd {
	case "build":
		out, err = build(dir, w, *interval)
	case "measure":
		out, err = measure(dir, w, *interval)
	default:
		fmt.Fprintf(os.Stderr, "iavl-bench: unknown command %q\n", cmd)
		os.Exit(64)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "iavl-bench:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "iavl-bench:", err)
		os.Exit(1)
	}
}
