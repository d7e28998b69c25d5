package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/blockwarc/blockwarc/dedupe/pack"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/export/columnar"
)

const proveAbout = `Prove, from the original files ORIGINAL... (files, directories or
globs, as given to ingest), that the input files an ingest without
-prove (the default) did not examine restore as given, compressed, bit for bit, and record it
in ARCHIVE: for each gzip member of each file, the zlib settings that
deflate its decompressed bytes back into the member's bytes.

Ingest leaves this step out unless -prove: it is as costly again as the
rest of ingest (zlib deflates every decompressed byte again): ingest
when the crawl arrives, prove when cores are idle, before the originals
are deleted ('blockwarc verify -originals' calls none safe before).
An original is used for the input file of the same size and SHA-256
only; originals of no such file are named and left alone. Until a file
is proven, 'export-warc -source FILE -original' refuses it and
'verify -originals' does not call it safe to delete (it still restores
decompressed, byte for byte). Running prove again after Ctrl-C or a crash
starts over; nothing is committed until every original given is read.`

func runProve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("prove", "ARCHIVE ORIGINAL...", proveAbout, stderr)
	// Work for idle cores, as ingest's and compact's.
	nice := fs.Int("nice", defaultNice, niceUsage)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() < 2 {
		fmt.Fprintln(stderr, "blockwarc prove: want ARCHIVE and at least one ORIGINAL")
		fs.Usage()
		return exitUsage
	}
	if !setNice("prove", *nice, stderr) {
		return exitUsage
	}
	arch := fs.Arg(0)
	res, from, to, err := shard.Prove(ctx, arch, fs.Args()[1:], pack.Options{})
	if err != nil {
		archiveError(stderr, "prove", arch, err)
		return exitFailure
	}
	if res.To != res.From {
		// The tables say nothing of how files restore compressed: tables
		// that described the archive before still describe it.
		tdir := filepath.Join(arch, "tables")
		if _, err := columnar.AdvanceGeneration(tdir, from, to); err != nil {
			fmt.Fprintf(stderr, "blockwarc prove: %s committed, but: %v\n", arch, err)
			return exitFailure
		}
	}
	for _, n := range res.NotExact {
		fmt.Fprintf(stderr, "blockwarc prove: %s: does not restore as given compressed (it restores decompressed)\n", n)
	}
	for _, p := range res.Unmatched {
		fmt.Fprintf(stderr, "blockwarc prove: %s: the content of no input file left to prove (proven already, or not in the archive)\n", p)
	}
	fmt.Fprintf(stdout, "%s: %d file(s) proven to restore as given, %d not restorable compressed, %d original(s) unmatched; %d file(s) still unproven\n",
		arch, len(res.Proven), len(res.NotExact), len(res.Unmatched), res.Left)
	return exitOK
}
