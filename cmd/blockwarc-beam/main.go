// Command blockwarc-beam is 'blockwarc ingest -shards N' as an Apache
// Beam pipeline: the same sharded archive and tables, byte for byte, with
// each input read once (its records sorted into key-ordered segments, its
// gzip members learnt from the same read), each shard ingesting only the
// segments of its key range, and the shards' tables spread over a
// runner's workers. Given an existing sharded archive it adds the inputs
// to its shards, routed by the stored boundaries. It is a module of its
// own so that the blockwarc command does not link the Beam SDK.
//
//	blockwarc-beam [-runner prism] [-shards N] ... ARCHIVE INPUT...
//
// The workers must see the inputs and the archive's directory at the same
// paths (a shared file system). A new archive's shards are written on
// each worker's local disk (-tmp) and then published beside ARCHIVE;
// extending an archive writes its shards in place, which needs a local
// file system or one whose locks hold across hosts (docs/COMMANDS.md,
// "blockwarc-beam"). The archive is built beside ARCHIVE and published by
// one rename when every shard is written, so a failed or killed run
// publishes nothing; run it again. -fast writes the fast tier as
// 'blockwarc ingest -fast' does; as there, the proof that each .warc.gz
// input restores as given is left to 'blockwarc prove' unless -prove.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/blockwarc/blockwarc/dedupe/ingestflags"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/warcio"
)

// Exit statuses, as blockwarc's.
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	cfg, inputs, code := parseArgs(flag.CommandLine, os.Args[1:], os.Stderr)
	if code != 0 {
		os.Exit(code)
	}
	beam.Init()
	done := ownTempDir(&cfg)
	err := Run(context.Background(), cfg, inputs, beamx.Run)
	done()
	if err != nil {
		fmt.Fprintf(os.Stderr, "blockwarc-beam: %v\n", err)
		os.Exit(exitFailure)
	}
}

// ownTempDir gives a run on the local runner (prism, the default: the
// workers run in this process) a temporary directory of its own, removed
// by done: Beam's loopback mode leaves an empty placeholder file,
// beamloopbackworker-*, in the temporary directory at every run
// (apache/beam#27569). -tmp's default, the directory the environment
// names, is taken first, so that the steps' work and what a killed run
// left there stay where they were. Another runner's workers choose their
// own -tmp: nothing changes for them.
func ownTempDir(cfg *Config) (done func()) {
	if !flagIs("runner", "", "prism") || !flagIs("environment_type", "", "loopback") {
		return func() {}
	}
	cfg.Ingest.TempDir = cmp.Or(cfg.Ingest.TempDir, os.TempDir())
	dir, err := os.MkdirTemp("", "blockwarc-beam-run-")
	if err != nil {
		return func() {}
	}
	prior, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	return func() {
		if had {
			os.Setenv("TMPDIR", prior)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}
}

// flagIs reports whether the flag name, as Beam registered it on the
// command line, is one of vals (case aside), or absent and "" is.
func flagIs(name string, vals ...string) bool {
	v := ""
	if f := flag.Lookup(name); f != nil {
		v = f.Value.String()
	}
	for _, w := range vals {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return false
}

// parseArgs defines the command's flags on fs (flag.CommandLine in main,
// where Beam's are) and parses args: the Config, the inputs, and a
// non-zero exit status when they are bad. The flags 'blockwarc ingest'
// has too are parsed and checked by ingestflags, as there.
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer) (Config, []string, int) {
	shards := fs.Int("shards", 2, "`N` shards (key ranges) of the new archive")
	level := fs.Int("level", 0, "partition `LEVEL` (as blockwarc ingest -level; 0: adaptive, the default)")
	commit := fs.String("commit", ingestflags.DefaultCommit, "commit each shard after every `SIZE` of input records (as blockwarc ingest -commit)")
	parity := fs.Bool("parity", true, "write Reed-Solomon parity (as blockwarc ingest -parity)")
	workers := fs.Int("shard-workers", 1, "`N` URLs modelled in parallel inside each shard's ingest")
	mem := fs.String("shard-mem", ingestflags.DefaultMem, "memory `SIZE` of each shard's ingest (sort and records in flight; the Go heap limit of a worker is set from it)")
	tmp := fs.String("tmp", "", "`DIR` for the shard ingests' sort runs")
	policy := fs.String("policy", ingestflags.DefaultPolicy, "`POLICY` for malformed input: skip, warn or fail")
	lanes := fs.Int("lanes", runtime.GOMAXPROCS(0), "`N` lanes of each long step, run at once by runners that run a step's elements one after the other (Prism; default: this machine's cores)")
	fast := fs.Bool("fast", false, "write frames at a fast zstd level (as blockwarc ingest -fast: the fast tier, 'blockwarc compact' writes the dense copy later)")
	prove := fs.Bool("prove", false, "also learn the zlib settings that restore each .warc.gz input as given, bit for bit (as blockwarc ingest -prove); by default 'blockwarc prove ARCHIVE ORIGINAL...' does that later, before the originals are deleted")
	replace := fs.Bool("replace", false, "replace ARCHIVE if it exists (atomically, once the new one is complete)")
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: blockwarc-beam [flags] ARCHIVE INPUT...\n\n"+
			"Writes the sharded archive and tables 'blockwarc ingest -shards N ARCHIVE INPUT...'\n"+
			"writes, as an Apache Beam pipeline (-runner prism by default: in this process).\n"+
			"An existing sharded ARCHIVE is extended: its stored boundaries route the inputs.\n"+
			"The flags blockwarc ingest has too (-level -commit -parity -policy -tmp -fast -prove,\n"+
			"-shard-mem and -shard-workers for each shard) mean what they mean there: without\n"+
			"-prove, 'blockwarc prove ARCHIVE ORIGINAL...' proves the .warc.gz inputs later.\n\n"+
			"Exit status: 0 done, 1 failed (nothing published), 2 bad usage.\n\nFlags (Beam's too):\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, nil, exitUsage
	}
	if fs.NArg() < 2 || *shards < 1 {
		fs.Usage()
		return Config{}, nil, exitUsage
	}
	v, err := ingestflags.Flags{Level: *level, Commit: *commit, Mem: *mem, Policy: *policy,
		Parity: *parity, TempDir: *tmp, Workers: *workers, Fast: *fast, SkipProof: !*prove}.Parse()
	if e := (*ingestflags.Error)(nil); errors.As(err, &e) {
		// This command's names for each shard's share.
		e.Flag = cmp.Or(map[string]string{"mem": "shard-mem", "workers": "shard-workers"}[e.Flag], e.Flag)
	}
	if err != nil {
		fmt.Fprintf(stderr, "blockwarc-beam: %v\n", err)
		return Config{}, nil, exitUsage
	}
	return Config{Archive: fs.Arg(0), Shards: *shards, Ingest: v, Replace: *replace, Lanes: *lanes}, fs.Args()[1:], 0
}

// Run checks the arguments, clears what an earlier failed run staged,
// and runs the pipeline with run.
func Run(ctx context.Context, cfg Config, inputs []string, run func(context.Context, *beam.Pipeline) error) error {
	// One run at a time on an archive: a second would remove the first's
	// staging below, and could publish shards the first staged.
	release, err := lockRun(cfg)
	if err != nil {
		return err
	}
	defer release()
	if _, err := os.Stat(cfg.Archive); err == nil && !cfg.Replace {
		// An existing sharded archive is extended: its stored boundaries
		// route the new records into its shards.
		m, err := shard.ReadManifest(cfg.Archive)
		if errors.Is(err, shard.ErrNoManifest) {
			return fmt.Errorf("%s exists and is not a sharded archive: the pipeline writes a new one (-replace to replace it) or extends a sharded one", cfg.Archive)
		}
		if err != nil {
			return err
		}
		// Both copies of the manifest whole before any worker starts.
		if note, err := shard.MendManifest(cfg.Archive, m); err != nil {
			return err
		} else if note != "" {
			fmt.Fprintf(os.Stderr, "blockwarc-beam: %s\n", note)
		}
		cfg.Extend, cfg.Boundaries = true, m.Boundaries()
		if cfg.Shards != len(m.Shards) {
			fmt.Fprintf(os.Stderr, "blockwarc-beam: %s keeps its %d shard(s) and their stored key boundaries (-shards %d applies to a new archive only)\n", cfg.Archive, len(m.Shards), cfg.Shards)
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// Checked here too, so that a mistake fails before any worker starts.
	if _, err := warcio.ExpandInputs(inputs); err != nil {
		return err
	}
	// Staged by a run that failed: never published, started over.
	if err := os.RemoveAll(cfg.staging()); err != nil {
		return err
	}
	if err := os.RemoveAll(cfg.partsDir()); err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	Build(s, cfg, inputs)
	return run(ctx, p)
}

// runLock names the file a run holds locked beside the archive.
func (c Config) runLock() string {
	return filepath.Join(filepath.Dir(c.Archive), "."+filepath.Base(c.Archive)+".beam-lock")
}

// lockRun takes the archive's run lock: an exclusive flock on runLock,
// which release removes. One a killed run left is taken over (the
// kernel dropped its lock). Where the file system has no flock (some
// network file systems) the run goes on unlocked, as before.
func lockRun(c Config) (release func(), err error) {
	p := c.runLock()
	for range 16 {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", c.Archive, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			switch {
			case errors.Is(err, syscall.EWOULDBLOCK):
				return nil, fmt.Errorf("another blockwarc-beam run is writing %s (it holds %s)", c.Archive, p)
			case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EINVAL):
				os.Remove(p)
				return func() {}, nil
			}
			return nil, fmt.Errorf("lock %s: %w", c.Archive, err)
		}
		// The file locked must still be the one at p: a run that just
		// released it removed it, and a third may have made another.
		held, err1 := f.Stat()
		now, err2 := os.Stat(p)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return func() {
				os.Remove(p)
				f.Close()
			}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: %s keeps changing", c.Archive, p)
}
