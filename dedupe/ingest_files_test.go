package dedupe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
	"github.com/blockwarc/blockwarc/warcio"
)

// TestInputFileCounts ingests every interop file at once, damaged ones
// included, and checks each input-file row's record and malformed counts
// against a separate read of that file alone, under both the skip and the
// warn policy (whose OnError must still see every error).
func TestInputFileCounts(t *testing.T) {
	dir := sharedtest.Interop(t)
	inputs, err := expandInputs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	type counts struct{ records, malformed int64 }
	want := map[string]counts{}
	var damaged int
	for _, p := range inputs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rd := warcio.NewReaderOptions(f, p, warcio.Options{Digests: true})
		var c counts
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read %s: %v", p, err)
			}
			io.Copy(io.Discard, rec.Body) // damage is counted by the reader
			c.records++
		}
		f.Close()
		c.malformed = rd.Skipped()
		if c.malformed > 0 {
			damaged++
		}
		want[filepath.Base(p)] = c
	}
	if damaged < 3 {
		t.Fatalf("only %d interop files have malformed records: the test needs several", damaged)
	}
	for _, policy := range []warcio.Policy{warcio.PolicySkip, warcio.PolicyWarn} {
		arch := filepath.Join(t.TempDir(), "a.bwa")
		opts := testOpts()
		opts.Workers = 2
		opts.Reader.Policy = policy
		var warned atomic.Int64
		if policy == warcio.PolicyWarn {
			opts.Reader.OnError = func(error) { warned.Add(1) }
		}
		st, err := Ingest(context.Background(), arch, []string{dir}, opts)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Open(arch, pack.Options{})
		if err != nil {
			t.Fatal(err)
		}
		files := a.Files()
		a.Close()
		if len(files) != len(inputs) {
			t.Fatalf("policy %v: %d input-file rows for %d inputs", policy, len(files), len(inputs))
		}
		var records, malformed int64
		for _, f := range files {
			w := want[f.Name]
			if f.Records != w.records || f.Malformed != w.malformed {
				t.Errorf("policy %v: %s: %d records, %d malformed; reading it alone: %d, %d",
					policy, f.Name, f.Records, f.Malformed, w.records, w.malformed)
			}
			records += f.Records
			malformed += f.Malformed
		}
		if records != st.Records || malformed != st.Malformed {
			t.Errorf("policy %v: rows sum to %d records, %d malformed; ingest counted %d, %d",
				policy, records, malformed, st.Records, st.Malformed)
		}
		if policy == warcio.PolicyWarn && warned.Load() < st.Malformed {
			t.Errorf("OnError saw %d errors for %d malformed records", warned.Load(), st.Malformed)
		}
	}
}

// TestIngestCancelled cancels a 2-worker ingest while jobs are in flight:
// Ingest must return the cancellation (not hang on its workers or the
// applier), leave the archive at its last commit, and a second run must
// complete it to the same archive as an uninterrupted run.
func TestIngestCancelled(t *testing.T) {
	in := sharedtest.Dir(t, "corpus", "ota-mektoube")
	arch := filepath.Join(t.TempDir(), "a.bwa")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := testOpts()
	opts.Workers = 2
	urls := 0
	opts.Progress = func(Stats) {
		if urls++; urls == 3 {
			cancel()
		}
	}
	if _, err := Ingest(ctx, arch, []string{in}, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ingest returned %v, want context.Canceled", err)
	}
	opts.Progress = nil
	st, err := Ingest(context.Background(), arch, []string{in}, opts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(arch, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	n := checkRoundTrip(t, a)
	if int64(n) != st.Records {
		t.Errorf("catalog holds %d records after the resumed ingest read %d (%d repeats)", n, st.Records, st.Repeats)
	}
	if len(a.Files()) != len(mustExpand(t, in)) {
		t.Errorf("%d input-file rows, want one per input", len(a.Files()))
	}
}

func mustExpand(t testing.TB, in string) []string {
	t.Helper()
	files, err := expandInputs([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestIngestFinishing: once storing is done, Finishing names each step
// that remains, in order, so that a progress display can say why it
// waits; without the bit-exact check of the originals that step is not
// named.
func TestIngestFinishing(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "in.warc")
	t0 := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	writeFile(t, f,
		warcRecord("response", "http://a.example/", t0, 1, httpResponse("text/html", []byte("<html><body><p>one</p></body></html>"), false)),
		warcRecord("response", "http://a.example/", t0.Add(time.Hour), 2, httpResponse("text/html", []byte("<html><body><p>two</p></body></html>"), false)))
	for _, skip := range []bool{false, true} {
		var steps []string
		opts := testOpts()
		opts.SkipOriginal = skip
		opts.Finishing = func(s string) { steps = append(steps, s) }
		if _, err := Ingest(context.Background(), filepath.Join(dir, fmt.Sprintf("a%v.bwa", skip)), []string{f}, opts); err != nil {
			t.Fatal(err)
		}
		want := []string{"hashing the input files", "checking that the input files restore bit for bit", "committing"}
		if skip {
			want = []string{want[0], want[2]}
		}
		if !slices.Equal(steps, want) {
			t.Errorf("SkipOriginal %v: steps %q, want %q", skip, steps, want)
		}
	}
}
