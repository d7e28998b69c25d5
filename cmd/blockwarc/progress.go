package main

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/blockwarc/blockwarc/warcio"
)

// progressTo is where a command draws its progress: stderr when it is a
// terminal, or whatever it is when -progress asks (a log, a test); nil
// for none, so pipes and CI stay quiet.
func progressTo(stderr io.Writer, force bool) io.Writer {
	if force {
		return stderr
	}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// inputSize is the stored size of the files the inputs name, by the rule
// every command reads them with (warcio.ExpandInputs): a directory's
// README, CDX files or manifests are not read, and counting them left
// the reading bar short of its end. -1 when unknown.
func inputSize(inputs []string) int64 {
	files, err := warcio.ExpandInputs(inputs)
	if err != nil {
		return -1
	}
	var total int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	if total == 0 {
		return -1
	}
	return total
}

// progressThrottle is how often at most a bar is drawn (tests draw
// every move, to see each).
var progressThrottle = 100 * time.Millisecond

// stepUnits is the share of the bar one step has.
const stepUnits = 1000

// stepBar is a progress bar over the steps of a run (ingest: reading,
// then storing), each an equal share of it, each counting its own
// measure (stored bytes read; decompressed bytes stored): it only moves
// forward, so a step whose total is learnt late, or a count that falls
// short of its total, never draws the bar backwards, and Done fills it.
type stepBar struct {
	bar   *progressbar.ProgressBar
	steps int
	mu    sync.Mutex
	at    int64 // units drawn
}

func newStepBar(w io.Writer, steps int, what string) *stepBar {
	return &stepBar{steps: steps, bar: progressbar.NewOptions64(int64(steps*stepUnits),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionThrottle(progressThrottle),
		progressbar.OptionClearOnFinish(),
	)}
}

// Set moves the bar to done of total within step (0-based); a point
// behind the bar is ignored.
func (b *stepBar) Set(step int, done, total int64) {
	u := int64(step) * stepUnits
	if total > 0 {
		u += stepUnits * min(max(done, 0), total) / total
	}
	u = min(u, int64(b.steps*stepUnits))
	b.mu.Lock()
	defer b.mu.Unlock()
	if u <= b.at {
		return
	}
	b.at = u
	_ = b.bar.Set64(u)
}

// Describe says what the run does now.
func (b *stepBar) Describe(s string) { b.bar.Describe(s) }

// Clear erases the bar, for a line of text to be written.
func (b *stepBar) Clear() { _ = b.bar.Clear() }

// Finish fills the bar and clears it.
func (b *stepBar) Finish() {
	b.Set(b.steps, 0, 1)
	_ = b.bar.Finish()
}
