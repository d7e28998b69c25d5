package shard

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/blockwarc/blockwarc/warcio"
)

// maxSampleKeys bounds the distinct keys the boundary sample holds (about
// 100 bytes each): beyond it, the sample keeps a smaller share of keys.
const maxSampleKeys = 1 << 20

// keyHash is a fixed (seedless) 64-bit FNV-1a of key: the sample must not
// change from run to run.
func keyHash(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	// FNV's low bits mix poorly; fold the high ones in.
	return h ^ h>>29
}

// sample is a byte-weighted sample of SURT keys: every key whose hash is
// below limit, with the block bytes of its records. Which keys it holds
// depends only on the set of keys read, not on their order: the limit
// halves whenever the sample outgrows maxSampleKeys, and a key dropped
// then would be dropped whenever it came.
type sample struct {
	mu    sync.Mutex
	limit uint64 // keys with keyHash < limit are sampled
	cap   int    // the most keys held (maxSampleKeys)
	bytes map[string]int64
	total int64 // block bytes of every record read, sampled or not
}

func (s *sample) add(key string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += n
	if key == "" || keyHash(key) >= s.limit {
		return
	}
	s.bytes[key] += n
	for len(s.bytes) > s.cap {
		s.limit /= 2
		for k := range s.bytes {
			if keyHash(k) >= s.limit {
				delete(s.bytes, k)
			}
		}
	}
}

// Boundaries chooses the first keys of shards 1..n-1 for the records of
// inputs: it reads every record's key and block length (headers only,
// files in parallel) into a byte-weighted sample and cuts it into n
// ranges of about equal bytes (cut). Fewer boundaries come back when the
// inputs have fewer distinct places to cut.
func Boundaries(ctx context.Context, inputs []string, n int, reader warcio.Options) ([]string, error) {
	if n <= 1 {
		return nil, nil
	}
	files, err := warcio.ExpandInputs(inputs)
	if err != nil {
		return nil, err
	}
	s := &sample{limit: ^uint64(0), cap: maxSampleKeys, bytes: map[string]int64{}}
	reader.Policy = warcio.PolicySkip
	reader.OnError = nil
	work := make(chan string)
	errs := make(chan error, len(files))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(files), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				errs <- sampleFile(ctx, f, reader, s)
			}
		}()
	}
	for _, f := range files {
		work <- f
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return cut(s.bytes, n), nil
}

func sampleFile(ctx context.Context, name string, o warcio.Options, s *sample) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("sample shard keys: %w", err)
	}
	defer f.Close()
	r := warcio.NewReaderOptions(f, name, o)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sample shard keys: %s: %w", name, err)
		}
		s.add(warcio.SURT(rec.TargetURI), rec.ContentLen)
	}
}

// Sample is a byte-weighted sample of the SURT keys of some input files,
// as Boundaries collects it, in a form that can travel between processes:
// a distributed ingest (cmd/blockwarc-beam) samples each file apart and
// merges the samples. Which keys it holds depends only on the set of keys
// read: samples merged in any order equal the sample Boundaries reads
// from all their files, so Cut chooses the same boundaries. The zero
// Sample is empty.
type Sample struct {
	// Thinned is how many times the key limit was halved: keys with
	// keyHash < ^uint64(0)>>Thinned are held.
	Thinned uint
	Keys    map[string]int64 // block bytes of the held keys' records
	Total   int64            // block bytes of every record read
}

// SampleFile reads the keys and block lengths of the records of one
// input file (headers only; malformed records skipped) into a Sample.
func SampleFile(ctx context.Context, name string, reader warcio.Options) (Sample, error) {
	s := &sample{limit: ^uint64(0), cap: maxSampleKeys, bytes: map[string]int64{}}
	reader.Policy = warcio.PolicySkip
	reader.OnError = nil
	if err := sampleFile(ctx, name, reader, s); err != nil {
		return Sample{}, err
	}
	out := Sample{Keys: s.bytes, Total: s.total}
	for l := ^uint64(0); l > s.limit; l /= 2 {
		out.Thinned++
	}
	return out, nil
}

// Merge adds the sample o to s.
func (s *Sample) Merge(o Sample) { s.merge(o, maxSampleKeys) }

func (s *Sample) merge(o Sample, capKeys int) {
	m := &sample{limit: ^uint64(0) >> max(s.Thinned, o.Thinned), cap: capKeys, bytes: map[string]int64{}}
	for _, x := range []Sample{*s, o} {
		for k, n := range x.Keys {
			m.add(k, n)
		}
	}
	// add counted the held keys' bytes into total: the totals read are
	// the parts' totals.
	*s = Sample{Thinned: max(s.Thinned, o.Thinned), Keys: m.bytes, Total: s.Total + o.Total}
	for l := ^uint64(0) >> s.Thinned; l > m.limit; l /= 2 {
		s.Thinned++
	}
}

// Cut chooses the first keys of shards 1..n-1 from the sample, as
// Boundaries does from its own.
func (s Sample) Cut(n int) []string { return cut(s.Keys, n) }

// host is the host part of a SURT key ("com,example)/a" → "com,example").
func host(key string) string {
	if i := strings.IndexByte(key, ')'); i >= 0 {
		return key[:i]
	}
	return key
}

// cut splits the weighted keys into n ranges of about equal weight and
// returns the first key of each range after the first. A cut falls
// between two hosts, the host boundary nearest the ideal place, unless
// the host the ideal place falls in is large (at least half a range):
// then inside it, at the key there. The URLs of a small host stay
// together, so that their shared blocks stay in one shard.
func cut(weights map[string]int64, n int) []string {
	keys := make([]string, 0, len(weights))
	var total int64
	for k, w := range weights {
		keys = append(keys, k)
		total += w
	}
	if len(keys) == 0 || n <= 1 {
		return nil
	}
	slices.Sort(keys)
	// Host spans: hostStart[i] is the index of the first key of key i's
	// host; hostW the weight of each host, by its first key's index.
	hostStart := make([]int, len(keys))
	hostW := map[int]int64{}
	for i, k := range keys {
		if i > 0 && host(k) == host(keys[i-1]) {
			hostStart[i] = hostStart[i-1]
		} else {
			hostStart[i] = i
		}
		hostW[hostStart[i]] += weights[k]
	}
	cum := make([]int64, len(keys)+1) // weight before key i
	for i, k := range keys {
		cum[i+1] = cum[i] + weights[k]
	}
	per := total / int64(n)
	var out []string
	for j := 1; j < n; j++ {
		target := total * int64(j) / int64(n)
		// i: the key the target falls in.
		i := max(0, min(len(keys)-1, sortSearch(cum[1:], target)))
		at := i
		if hs := hostStart[i]; hostW[hs] < per/2 {
			// A small host: cut at its start or at the next host's,
			// whichever is nearer the target.
			next := hs + 1
			for next < len(keys) && hostStart[next] == hs {
				next++
			}
			at = hs
			if next < len(keys) && cum[next]-target < target-cum[hs] {
				at = next
			}
			if next >= len(keys) {
				at = hs
			}
		}
		if at <= 0 || at >= len(keys) {
			continue
		}
		if b := keys[at]; len(out) == 0 || b > out[len(out)-1] {
			out = append(out, b)
		}
	}
	return out
}

// sortSearch is the first index i with xs[i] > v (xs ascending).
func sortSearch(xs []int64, v int64) int {
	i, _ := slices.BinarySearchFunc(xs, v, func(x, v int64) int {
		if x <= v {
			return -1
		}
		return 1
	})
	return i
}
