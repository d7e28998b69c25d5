package ingestflags

import (
	"errors"
	"math"
	"runtime/debug"
	"testing"

	"github.com/blockwarc/blockwarc/dedupe"
	"github.com/blockwarc/blockwarc/dedupe/shard"
	"github.com/blockwarc/blockwarc/partition"
	"github.com/blockwarc/blockwarc/warcio"

	"github.com/klauspost/compress/zstd"
)

// TestParseSize: every size either command took before they shared this
// parser ('blockwarc ingest' took all of these, blockwarc-beam the byte
// counts and the KiB/MiB/GiB, KB/MB/GB and B forms, and refused 64M)
// means what it meant there.
func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		// both commands
		{"123", 123}, {"5B", 5}, {"4KiB", 4 << 10}, {"4MiB", 4 << 20}, {"256MiB", 256 << 20},
		{"1GiB", 1 << 30}, {"100KB", 100e3}, {"64MB", 64e6}, {"2GB", 2e9},
		// 'blockwarc ingest' only, before: now blockwarc-beam's too
		{"64M", 64 << 20}, {"512M", 512 << 20}, {"100k", 100 << 10}, {"1G", 1 << 30}, {"1T", 1 << 40},
		{"1TiB", 1 << 40}, {"1TB", 1e12}, {"1e6", 1e6}, {"1.5MiB", 3 << 19}, {"64mib", 64 << 20},
		{" 64 MiB ", 64 << 20}, {"0", 0},
	} {
		got, err := ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "lots", "-1MiB", "-1", "MiB", "64X", "inf", "NaN", "1e30", "9223372036854775807GiB", "0x10"} {
		if n, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d, no error", bad, n)
		}
	}
}

func TestParse(t *testing.T) {
	f := Flags{Level: 2, Commit: "64M", Mem: "512MiB", Policy: "fail", Parity: false, TempDir: "/t", Workers: 3}
	v, err := f.Parse()
	if err != nil {
		t.Fatal(err)
	}
	want := Values{Level: 2, CommitBytes: 64 << 20, MemLimit: 512 << 20, NoParity: true, Workers: 3, TempDir: "/t", Policy: warcio.PolicyFail}
	if v != want {
		t.Fatalf("Parse = %+v, want %+v", v, want)
	}
	o := v.Options()
	if o.Level != 2 || o.CommitBytes != 64<<20 || o.MemLimit != 512<<20 || !o.Pack.NoParity || o.Workers != 3 ||
		o.TempDir != "/t" || o.Reader.Policy != warcio.PolicyFail || o.Reader.OnError != nil {
		t.Fatalf("Options = %+v", o)
	}
	// -fast: the fast tier's level; -prove=false: no proof.
	fast, err := Flags{Commit: DefaultCommit, Mem: DefaultMem, Policy: DefaultPolicy, Fast: true, SkipProof: true, Workers: 1}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if o := fast.Options(); o.Pack.Level != zstd.SpeedBetterCompression || !o.SkipOriginal {
		t.Fatalf("-fast -prove=false: level %v, skip the proof %v", o.Pack.Level, o.SkipOriginal)
	}
	if o := v.Options(); o.Pack.Level != 0 || o.SkipOriginal {
		t.Fatalf("defaults: level %v, skip the proof %v", o.Pack.Level, o.SkipOriginal)
	}
	def, err := Flags{Commit: DefaultCommit, Mem: DefaultMem, Policy: DefaultPolicy, Parity: true, Workers: 1}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if o := def.Options(); o.Level != partition.LevelAdaptive || o.CommitBytes != dedupe.DefaultCommitBytes || o.Pack.NoParity {
		t.Fatalf("defaults: %+v", o)
	}
	for flag, f := range map[string]Flags{
		"mem":     {Commit: "1MiB", Mem: "0", Policy: "warn", Workers: 1},
		"commit":  {Commit: "lots", Mem: "1MiB", Policy: "warn", Workers: 1},
		"level":   {Level: -1, Commit: "1MiB", Mem: "1MiB", Policy: "warn", Workers: 1},
		"workers": {Commit: "1MiB", Mem: "1MiB", Policy: "warn"},
		"policy":  {Commit: "1MiB", Mem: "1MiB", Policy: "loud", Workers: 1},
	} {
		var e *Error
		if _, err := f.Parse(); !errors.As(err, &e) || e.Flag != flag {
			t.Errorf("%+v: error %v, want one for -%s", f, err, flag)
		}
	}
}

// TestHoldHeap: the limit is shard.Split's, ingests held at once add up,
// and the last release restores the process's limit.
func TestHoldHeap(t *testing.T) {
	prior := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prior)
	_, _, _, one := shard.Split(256<<20, 1, 1)
	_, _, _, two := shard.Split(512<<20, 2, 2)
	limit, release1 := HoldHeap(256<<20, 1, 1)
	if got := debug.SetMemoryLimit(-1); limit != one || got != one {
		t.Fatalf("one ingest: limit %d, set %d; want %d", limit, got, one)
	}
	limit, release2 := HoldHeap(256<<20, 1, 1)
	if got := debug.SetMemoryLimit(-1); limit != two || got != two {
		t.Fatalf("two ingests: limit %d, set %d; want %d (as one of two shards)", limit, got, two)
	}
	release2()
	release2() // a second release takes nothing more
	if got := debug.SetMemoryLimit(-1); got != one {
		t.Fatalf("after a release: %d, want %d", got, one)
	}
	release1()
	if got := debug.SetMemoryLimit(-1); got != prior {
		t.Fatalf("after the last release: %d, want the prior %d", got, prior)
	}
	if prior != math.MaxInt64 {
		t.Logf("prior limit %d (GOMEMLIMIT set?)", prior)
	}
}

// TestParseChain: -chain takes off, the archive's ("" or 0) and sizes
// from MinChain to MaxChain, and refuses the rest naming -chain.
func TestParseChain(t *testing.T) {
	for in, want := range map[string]int{"off": -1, "": 0, "0": 0, "64KiB": MinChain, "4MiB": 4 << 20, "1M": 1 << 20, "16MiB": MaxChain, "8MB": 8e6} {
		if got, err := ParseChain(in); err != nil || got != want {
			t.Errorf("ParseChain(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"65535", "1KiB", "16MiB1", "17MiB", "1GiB", "-1", "-4MiB", "on", "OFF", "none", "lots"} {
		var e *Error
		if n, err := ParseChain(bad); !errors.As(err, &e) || e.Flag != "chain" {
			t.Errorf("ParseChain(%q) = %d, %v; want an error for -chain", bad, n, err)
		}
	}
}
