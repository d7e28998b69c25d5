package main

import (
	"context"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// TestOwnTempDir: a run on the local runner (Prism, loopback) leaves
// nothing in the temporary directory, where Beam leaves an empty
// placeholder file at every run, and -tmp's default stays the directory
// the environment names.
func TestOwnTempDir(t *testing.T) {
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	var cfg Config
	done := ownTempDir(&cfg)
	if cfg.Ingest.TempDir != base {
		t.Errorf("-tmp's default is %q, want %q", cfg.Ingest.TempDir, base)
	}
	p := beam.NewPipeline()
	beam.Create(p.Root(), 1, 2, 3)
	if err := onPrism(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	done()
	if got := os.Getenv("TMPDIR"); got != base {
		t.Errorf("TMPDIR after the run: %q, want %q", got, base)
	}
	left, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}
