// Command blockwarc-beam is 'blockwarc ingest -shards N' as an Apache
// Beam pipeline: the same sharded archive and tables, byte for byte, with
// the reading, sampling, shard ingests and shards' tables spread over a
// runner's workers. Given an existing sharded archive it adds the inputs
// to its shards, routed by the stored boundaries. It is a module of its own so that the blockwarc command does
// not link the Beam SDK.
//
//	blockwarc-beam [-runner prism] [-shards N] ... ARCHIVE INPUT...
//
// The workers must see the inputs and the archive's directory at the same
// paths (a shared file system). The archive is built beside ARCHIVE and
// published by one rename when every shard is written, so a failed or
// killed run publishes nothing; run it again.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"blockwarc/dedupe/shard"
	"blockwarc/warcio"
)

// Exit statuses, as blockwarc's.
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	shards := flag.Int("shards", 2, "`N` shards (key ranges) of the new archive")
	level := flag.Int("level", 0, "partition `LEVEL` (as blockwarc ingest -level; 0: adaptive, the default)")
	commit := flag.String("commit", "256MiB", "commit each shard after every `SIZE` of input records (as blockwarc ingest -commit)")
	parity := flag.Bool("parity", true, "write Reed-Solomon parity (as blockwarc ingest -parity)")
	workers := flag.Int("shard-workers", 1, "`N` URLs modelled in parallel inside each shard's ingest")
	mem := flag.String("shard-mem", "1GiB", "memory `SIZE` of each shard's ingest (sort and records in flight)")
	tmp := flag.String("tmp", "", "`DIR` for the shard ingests' sort runs")
	policy := flag.String("policy", "warn", "`POLICY` for malformed input: skip, warn or fail")
	replace := flag.Bool("replace", false, "replace ARCHIVE if it exists (atomically, once the new one is complete)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: blockwarc-beam [flags] ARCHIVE INPUT...\n\n"+
			"Writes the sharded archive and tables 'blockwarc ingest -shards N ARCHIVE INPUT...'\n"+
			"writes, as an Apache Beam pipeline (-runner prism by default: in this process).\n"+
			"An existing sharded ARCHIVE is extended: its stored boundaries route the inputs.\n\n"+
			"Exit status: 0 done, 1 failed (nothing published), 2 bad usage.\n\nFlags (Beam's too):\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	cfg := Config{Shards: *shards, Level: *level, NoParity: !*parity, Workers: *workers, TempDir: *tmp, Replace: *replace}
	var err error
	if flag.NArg() < 2 || *shards < 1 || *level < 0 || *workers < 1 {
		flag.Usage()
		os.Exit(exitUsage)
	}
	if cfg.CommitBytes, err = parseSize(*commit); err != nil || cfg.CommitBytes <= 0 {
		fmt.Fprintf(os.Stderr, "blockwarc-beam: bad -commit %q\n", *commit)
		os.Exit(exitUsage)
	}
	if cfg.MemLimit, err = parseSize(*mem); err != nil || cfg.MemLimit <= 0 {
		fmt.Fprintf(os.Stderr, "blockwarc-beam: bad -shard-mem %q\n", *mem)
		os.Exit(exitUsage)
	}
	var ok bool
	if cfg.Policy, ok = map[string]warcio.Policy{"skip": warcio.PolicySkip, "warn": warcio.PolicyWarn, "fail": warcio.PolicyFail}[*policy]; !ok {
		fmt.Fprintf(os.Stderr, "blockwarc-beam: bad -policy %q: want skip, warn or fail\n", *policy)
		os.Exit(exitUsage)
	}
	cfg.Archive = flag.Arg(0)
	beam.Init()
	if err := Run(context.Background(), cfg, flag.Args()[1:], beamx.Run); err != nil {
		fmt.Fprintf(os.Stderr, "blockwarc-beam: %v\n", err)
		os.Exit(exitFailure)
	}
}

// Run checks the arguments, clears what an earlier failed run staged,
// and runs the pipeline with run.
func Run(ctx context.Context, cfg Config, inputs []string, run func(context.Context, *beam.Pipeline) error) error {
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
	p, s := beam.NewPipelineWithRoot()
	Build(s, cfg, inputs)
	return run(ctx, p)
}

// parseSize reads sizes such as 512MiB, 1GiB, 64MB or a byte count.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}
