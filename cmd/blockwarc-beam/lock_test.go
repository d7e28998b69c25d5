package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneRunAtATime: a run on an archive another run is writing fails
// before it touches anything (it used to remove the first run's staging
// at its start); a lock a killed run left is taken over, and a run
// removes its lock when it ends.
func TestOneRunAtATime(t *testing.T) {
	in := samples(t)[:1]
	dir := t.TempDir()
	cfg := defaults(filepath.Join(dir, "a.bwa"), 2)
	first, err := lockRun(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The first run's staging, as it would be mid-run.
	if err := os.MkdirAll(filepath.Join(cfg.staging(), "shard-0000"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = Run(context.Background(), cfg, in, onPrism)
	if err == nil || !strings.Contains(err.Error(), "another blockwarc-beam run") {
		t.Fatalf("a second run at once: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.staging(), "shard-0000")); err != nil {
		t.Fatalf("the second run removed the first's staging: %v", err)
	}
	if _, err := os.Stat(cfg.Archive); !os.IsNotExist(err) {
		t.Fatalf("the second run wrote the archive: %v", err)
	}
	first()
	if _, err := os.Stat(cfg.runLock()); !os.IsNotExist(err) {
		t.Fatalf("lock kept after its release: %v", err)
	}
	// A killed run's lock file: unlocked, taken over.
	if err := os.WriteFile(cfg.runLock(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), cfg, in, onPrism); err != nil {
		t.Fatal(err)
	}
	readable(t, cfg.Archive)
	if _, err := os.Stat(cfg.runLock()); !os.IsNotExist(err) {
		t.Fatalf("lock kept after the run: %v", err)
	}
}
