package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/graph"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/internal/sharedtest"
)

func TestMain(m *testing.M) {
	beam.Init()
	if j := os.Getenv(killHelperEnv); j != "" {
		os.Exit(runKillHelper(j)) // a process TestKilled kills
	}
	// Beam's loopback runner leaves an empty placeholder file
	// (beamloopbackworker-*) in the temporary directory at every run
	// (apache/beam#27569): the tests' runs leave theirs in a directory of
	// their own, removed after.
	tmp, err := os.MkdirTemp("", "blockwarc-beam-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// onPrism runs a pipeline on the Prism runner in this process.
func onPrism(ctx context.Context, p *beam.Pipeline) error {
	_, err := prism.Execute(ctx, p)
	return err
}

// defaults is the Config of blockwarc-beam's flag defaults, as 'blockwarc
// ingest' has them.
func defaults(archive string, shards int) Config {
	return Config{Archive: archive, Shards: shards, Ingest: ingestflags.Values{Level: dedupe.DefaultLevel,
		CommitBytes: dedupe.DefaultCommitBytes, Workers: 1, MemLimit: 256 << 20, SkipProof: true}, Lanes: 2}
}

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// cli builds the blockwarc command from the repository's own module (its
// own dependency versions, as users build it) once per test binary.
func cli(t testing.TB) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "blockwarc-beam-cli-")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "blockwarc")
		cmd := exec.Command("go", "build", "-o", cliPath, "./cmd/blockwarc")
		cmd.Dir = sharedtest.RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			cliErr = fmt.Errorf("go build ./cmd/blockwarc: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

// cliIngest runs blockwarc ingest -shards n, which writes the tables too.
func cliIngest(t testing.TB, archive string, n int, inputs []string, flags ...string) {
	t.Helper()
	args := append(append([]string{"ingest", "-workers", "2", "-shards", strconv.Itoa(n)}, flags...), archive)
	args = append(args, inputs...)
	if out, err := exec.Command(cli(t), args...).CombinedOutput(); err != nil {
		t.Fatalf("blockwarc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// files maps every regular file under dir to its bytes.
func files(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameArchive fails unless got and want hold the same files with the
// same bytes — shards, manifest and tables: the same Parquet bytes are
// the same rows — and the archive has at least minShards shards, each
// with its table parts.
func sameArchive(t testing.TB, got, want string, minShards int) {
	t.Helper()
	g, w := files(t, got), files(t, want)
	for _, n := range slices.Sorted(maps.Keys(w)) {
		if gb, ok := g[n]; !ok {
			t.Errorf("%s: missing (the CLI wrote %d bytes)", n, len(w[n]))
		} else if !bytes.Equal(gb, w[n]) {
			t.Errorf("%s: %d bytes differ from the CLI's %d", n, len(gb), len(w[n]))
		}
	}
	for n := range g {
		if _, ok := w[n]; !ok {
			t.Errorf("%s: written by the pipeline only", n)
		}
	}
	m, err := shard.ReadManifest(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Shards) < minShards {
		t.Fatalf("%d shards, want %d or more", len(m.Shards), minShards)
	}
	perShard := map[string]int{}
	for n := range w {
		perShard[strings.SplitN(n, "/", 2)[0]]++
	}
	for i, s := range m.Shards {
		if perShard[s.Name] == 0 {
			t.Errorf("shard %s: no files compared", s.Name)
		}
		if p := fmt.Sprintf("tables/captures/part-%04d-00000.parquet", i); w[p] == nil {
			t.Errorf("shard %s: no table part %s compared", s.Name, p)
		}
	}
	t.Logf("%d files compared in %d shards", len(w), len(m.Shards))
}

func samples(t *testing.T) []string {
	fs, err := filepath.Glob(filepath.Join(sharedtest.RepoRoot(t), "testdata", "samples", "*.warc.gz"))
	if err != nil || len(fs) < 4 {
		t.Fatalf("testdata/samples: %d files (%v)", len(fs), err)
	}
	return fs
}

// TestSameAsCLI: the pipeline's archive is the CLI's, file for file.
func TestSameAsCLI(t *testing.T) {
	cases := []struct {
		name   string
		inputs func(t *testing.T) []string
		shards int // asked for
		least  int // at least cut (the samples are of one host)
		flags  []string
	}{
		{"samples-2", samples, 2, 2, nil},
		{"samples-3", samples, 3, 2, nil},
		// The fast tier, its flag parsed by both commands.
		{"samples-2-fast", samples, 2, 2, []string{"-fast"}},
		// The proof made by the ingest (by default 'blockwarc prove'
		// makes it later, reading shard 0).
		{"samples-2-prove", samples, 2, 2, []string{"-prove"}},
		{"corpus-2sites-3", func(t *testing.T) []string {
			return sharedtest.CorpusFiles(t, "ota-lovescout24", "ota-mektoube")
		}, 3, 3, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.inputs(t)
			dir := t.TempDir()
			want, got := filepath.Join(dir, "cli.bwa"), filepath.Join(dir, "beam.bwa")
			cliIngest(t, want, c.shards, in, c.flags...)
			cfg := defaults(got, c.shards)
			if c.flags != nil {
				var stderr bytes.Buffer
				var code int
				args := append(append([]string{"-shards", strconv.Itoa(c.shards), "-shard-mem", "256MiB", "-lanes", "2"}, c.flags...), got)
				if cfg, _, code = parseArgs(flag.NewFlagSet("blockwarc-beam", flag.ContinueOnError), append(args, in...), &stderr); code != 0 {
					t.Fatalf("blockwarc-beam %v: exit %d: %s", c.flags, code, stderr.String())
				}
			}
			if err := Run(context.Background(), cfg, in, onPrism); err != nil {
				t.Fatal(err)
			}
			sameArchive(t, got, want, c.least)
			if c.flags != nil {
				// The flags changed what is stored: not the default's bytes.
				def := filepath.Join(dir, "default.bwa")
				cliIngest(t, def, c.shards, in)
				if maps.EqualFunc(files(t, got), files(t, def), bytes.Equal) {
					t.Errorf("%v wrote the bytes of the defaults", c.flags)
				}
			}
			if _, err := os.Stat(defaults(got, c.shards).staging()); !os.IsNotExist(err) {
				t.Errorf("staging directory left after publishing (%v)", err)
			}
		})
	}
}

// TestFinalizeFails: a finalize that fails before publishing leaves the
// archive published before readable and unchanged; running again
// publishes the new one.
func TestFinalizeFails(t *testing.T) {
	in := samples(t)
	dir := t.TempDir()
	arch := filepath.Join(dir, "a.bwa")
	ctx := context.Background()
	if err := Run(ctx, defaults(arch, 2), in[:3], onPrism); err != nil {
		t.Fatal(err)
	}
	before := files(t, arch)
	count := func() int {
		a, _, err := shard.Open(arch, pack.Options{})
		if err != nil {
			t.Fatalf("open the published archive: %v", err)
		}
		defer a.Close()
		n := 0
		if err := a.WalkOrdered(func(u dedupe.URLVersions) error { n += len(u.Versions); return nil }); err != nil {
			t.Fatalf("read the published archive: %v", err)
		}
		if _, err := a.Verify(func(p dedupe.Problem) { t.Errorf("verify the published archive: %v", p) }); err != nil {
			t.Fatalf("verify the published archive: %v", err)
		}
		return n
	}
	first := count()

	cfg := defaults(arch, 2)
	cfg.Replace = true
	cfg.FailFinalizeOnce = filepath.Join(dir, "fail-once")
	if err := os.WriteFile(cfg.FailFinalizeOnce, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(ctx, cfg, in, onPrism); err == nil {
		t.Fatal("the run whose finalize failed succeeded")
	}
	if _, err := os.Stat(cfg.FailFinalizeOnce); !os.IsNotExist(err) {
		t.Fatal("the finalize step did not run (its failure was not injected)")
	}
	after := files(t, arch)
	if len(after) != len(before) {
		t.Fatalf("the published archive changed: %d files, then %d", len(before), len(after))
	}
	for n, b := range before {
		if !bytes.Equal(after[n], b) {
			t.Fatalf("the published archive changed: %s", n)
		}
	}
	if n := count(); n != first || n == 0 {
		t.Fatalf("the published archive reads %d captures, before %d", n, first)
	}

	// The run again (the marker is gone) publishes the archive of every input.
	if err := Run(ctx, cfg, in, onPrism); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "cli.bwa")
	cliIngest(t, want, 2, in)
	sameArchive(t, arch, want, 2)
	if n := count(); n <= first {
		t.Fatalf("the new archive reads %d captures, the one of fewer inputs %d", n, first)
	}
}

// TestExtendSameAsCLI: the pipeline adding a second dump to the sharded
// archive it wrote of a first (no sampling: the stored boundaries route
// the records; its manifest damaged, read from the copy and mended)
// writes the archive and tables of 'blockwarc ingest' of the first dump,
// then of the second, file for file.
func TestExtendSameAsCLI(t *testing.T) {
	in := samples(t)
	first, second := in[:len(in)/2], in[len(in)/2:]
	dir := t.TempDir()
	want, got := filepath.Join(dir, "cli.bwa"), filepath.Join(dir, "beam.bwa")
	cliIngest(t, want, 2, first)
	cliIngest(t, want, 2, second)
	ctx := context.Background()
	if err := Run(ctx, defaults(got, 2), first, onPrism); err != nil {
		t.Fatal(err)
	}
	m1, err := shard.ReadManifest(got)
	if err != nil {
		t.Fatal(err)
	}
	// A damaged manifest: read from its copy, and both written again
	// before the shards are extended (sameArchive compares SHARDS).
	if err := os.WriteFile(filepath.Join(got, shard.ManifestName), []byte("damaged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Asking another shard count: the archive keeps its shards.
	if err := Run(ctx, defaults(got, 3), second, onPrism); err != nil {
		t.Fatal(err)
	}
	m2, err := shard.ReadManifest(got)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m1.Boundaries(), m2.Boundaries()) || m1.Generation != m2.Generation {
		t.Errorf("the manifest changed: %+v, then %+v", m1, m2)
	}
	sameArchive(t, got, want, 2)
	if _, err := os.Stat(defaults(got, 2).staging()); !os.IsNotExist(err) {
		t.Errorf("staging directory left after extending (%v)", err)
	}
}

// TestExtendKilled: a shard worker that dies while extending an archive
// (after its first commit of this run) leaves every shard at a commit,
// the archive readable, and the tables as they were; running the same
// pipeline again completes it into the archive of 'blockwarc ingest' of
// the two dumps, file for file.
func TestExtendKilled(t *testing.T) {
	in := samples(t)
	first, second := in[:len(in)/2], in[len(in)/2:]
	dir := t.TempDir()
	got, want := filepath.Join(dir, "beam.bwa"), filepath.Join(dir, "cli.bwa")
	ctx := context.Background()
	cfg := defaults(got, 2)
	cfg.Ingest.CommitBytes = 1 // a commit after every record: the worker dies mid-ingest
	if err := Run(ctx, cfg, first, onPrism); err != nil {
		t.Fatal(err)
	}
	tablesBefore := files(t, filepath.Join(got, "tables"))
	killed := cfg
	killed.FailShardOnce = filepath.Join(dir, "fail-once")
	if err := os.WriteFile(killed.FailShardOnce, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(ctx, killed, second, onPrism); err == nil {
		t.Fatal("the run whose shard worker died succeeded")
	}
	if _, err := os.Stat(killed.FailShardOnce); !os.IsNotExist(err) {
		t.Fatal("the shard's ingest did not commit and stop (its failure was not injected)")
	}
	a, _, err := shard.Open(got, pack.Options{})
	if err != nil {
		t.Fatalf("open the archive after the kill: %v", err)
	}
	if _, err := a.Verify(func(p dedupe.Problem) { t.Errorf("verify after the kill: %v", p) }); err != nil {
		t.Fatalf("verify after the kill: %v", err)
	}
	a.Close()
	tablesAfter := files(t, filepath.Join(got, "tables"))
	if !maps.EqualFunc(tablesBefore, tablesAfter, bytes.Equal) {
		t.Error("the tables changed in the run that failed")
	}

	if err := Run(ctx, cfg, second, onPrism); err != nil {
		t.Fatal(err)
	}
	cliIngest(t, want, 2, first, "-commit", "1")
	cliIngest(t, want, 2, second, "-commit", "1")
	sameArchive(t, got, want, 2)
}

// TestLongStepsReadNoSideInput: only the short keying step (one a lane)
// reads the boundaries as a side input. Prism reschedules a step that reads one,
// without waiting, for as long as its bundle runs: on the shard ingests
// and their tables that spinning took a third of the pipeline's CPU.
func TestLongStepsReadNoSideInput(t *testing.T) {
	for _, extend := range []bool{false, true} {
		cfg := defaults(filepath.Join(t.TempDir(), "a.bwa"), 2)
		cfg.Extend, cfg.Boundaries = extend, []string{"org,example)/"}
		p, s := beam.NewPipelineWithRoot()
		Build(s, cfg, []string{"in.warc.gz"})
		edges, _, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		var sided, pardos []string
		for _, e := range edges {
			if e.Op != graph.ParDo {
				continue
			}
			pardos = append(pardos, e.DoFn.Name())
			if len(e.Input) > 1 {
				sided = append(sided, e.DoFn.Name())
			}
		}
		// One keyFn a lane.
		keyFns := 0
		for _, n := range sided {
			if strings.HasSuffix(n, ".keyFn") {
				keyFns++
			}
		}
		if len(sided) != cfg.Lanes || keyFns != len(sided) {
			t.Errorf("extend=%v: steps reading a side input: %q, want only keyFn, one a lane (of %q)", extend, sided, pardos)
		}
	}
}
